package dev.peregrine.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every framing round-trips: random frames, encoded back to back and split at random points into
 * reads, decode to exactly the same frames in order, the way a connection feeds its receive buffer
 * (partial frames kept at the front and completed by later reads). The oracle is {@link ReferenceFraming},
 * written here from the framings' definitions and sharing no code with the codecs: Peregrine's encoder must
 * write its bytes exactly, and Peregrine's decoder must find the frames it finds in them.
 */
class FrameCodecPropertyTest {
    private static final int MAX = 300;

    record Case(String spec, List<byte[]> frames, List<Integer> cuts) {
    }

    @Provide
    Arbitrary<Case> cases() {
        final Arbitrary<String> specs = Arbitraries.of("fixed:7", "length:1be", "length:1le+self", "length:2be",
            "length:2le+self", "length:4be", "length:4le", "length:8be", "length:8le+self", "line", "crlf",
            "delimiter:00", "delimiter:abcdab", "delimiter:0d0a0d");
        return specs.flatMap(spec -> {
            final Arbitrary<byte[]> frame = frameBytes(spec);
            return Combinators.combine(frame.list().ofMaxSize(20), Arbitraries.integers().between(0, 10_000).list()
                .ofMaxSize(30)).as((frames, cuts) -> new Case(spec, frames, cuts));
        });
    }

    private static Arbitrary<byte[]> frameBytes(final String spec) {
        if (spec.startsWith("fixed:")) {
            return Arbitraries.bytes().array(byte[].class).ofSize(7);
        }
        if (spec.equals("line") || spec.equals("crlf") || spec.startsWith("delimiter:")) {
            // the delimiter's own bytes and a bare CR, often: a payload may hold anything but the whole delimiter,
            // and must not end in a prefix of it that the delimiter would complete early (abcd + abcdab)
            final byte[] delimiter = ReferenceFraming.delimiterOf(spec);
            final Arbitrary<Byte> tricky = Arbitraries.of((byte)'\r', (byte)'\n', (byte)0, (byte)0xab, (byte)0xcd);
            return Arbitraries.frequencyOf(Tuple.of(1, Arbitraries.bytes()), Tuple.of(2, tricky))
                .array(byte[].class).ofMaxSize(MAX)
                .map(payload -> ReferenceFraming.withoutDelimiter(payload, delimiter));
        }
        // a 1-byte length field caps frames at 255 bytes (254 when it counts itself)
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(spec.startsWith("length:1") ? 254 : MAX);
    }

    @Property(tries = 400)
    void everyFramingRoundTripsWhateverTheReadBoundaries(@ForAll("cases") final Case testCase) {
        final Framing framing = Framing.parse(testCase.spec());
        final FrameCodec encoder = framing.newCodec(MAX);
        final FrameCodec decoder = framing.newCodec(MAX);
        final byte[] stream = encode(encoder, testCase.frames());
        assertThat(stream).as("Peregrine's encoding against the reference encoder")
            .isEqualTo(ReferenceFraming.encode(testCase.spec(), testCase.frames()));
        final List<byte[]> expected = ReferenceFraming.decode(testCase.spec(), stream);
        assertThat(expected).as("the reference decoder").hasSize(testCase.frames().size());

        final List<byte[]> decoded = new ArrayList<>();
        final FrameSink sink = (buffer, offset, length) -> {
            final byte[] frame = new byte[length];
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, frame, 0, length);
            decoded.add(frame);
            return true;
        };
        final MemorySegment receive = Arena.ofAuto().allocate(MAX + 16);
        int written = 0;
        int start = 0;
        int end = 0;
        final int[] cuts = testCase.cuts().stream().mapToInt(c -> c % (stream.length + 1)).sorted().toArray();
        int nextCut = 0;
        while (written < stream.length) {
            int upTo = nextCut < cuts.length ? Math.max(cuts[nextCut++], written) : stream.length;
            upTo = Math.min(upTo, written + (int)receive.byteSize() - end); // what fits, as a socket read would
            MemorySegment.copy(stream, written, receive, ValueLayout.JAVA_BYTE, end, upTo - written);
            end += upTo - written;
            written = upTo;
            final int consumed = decoder.decode(receive, start, end - start, sink);
            assertThat(consumed).as(decoder.failure() == null ? "" : decoder.failure()).isNotNegative();
            start += consumed;
            MemorySegment.copy(receive, start, receive, 0, end - start);
            end -= start;
            start = 0;
        }

        assertThat(end).isZero();
        assertThat(decoded).hasSize(expected.size());
        for (int i = 0; i < decoded.size(); i++) {
            assertThat(decoded.get(i)).as("frame %d", i).isEqualTo(expected.get(i)).isEqualTo(testCase.frames().get(i));
        }
    }

    @Property(tries = 200)
    void rawFramingDeliversTheStreamUnchanged(@ForAll final byte[] stream) {
        final FrameCodec codec = Framing.raw().newCodec(16);
        final MemorySegment receive = MemorySegment.ofArray(stream);
        final byte[] out = new byte[stream.length];
        final int[] position = {0};

        final int consumed = codec.decode(receive, 0, stream.length, (buffer, offset, length) -> {
            assertThat(length).isBetween(1, 16);
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, out, position[0], length);
            position[0] += length;
            return true;
        });

        assertThat(consumed).isEqualTo(stream.length);
        assertThat(out).isEqualTo(stream);
    }

    private static byte[] encode(final FrameCodec codec, final List<byte[]> frames) {
        final MemorySegment out = Arena.ofAuto().allocate(frames.size() * (MAX + 16L) + 1);
        long position = 0;
        for (final byte[] frame : frames) {
            codec.writeHeader(out, position, frame.length);
            MemorySegment.copy(frame, 0, out, ValueLayout.JAVA_BYTE, position + codec.headerLength(), frame.length);
            codec.writeTrailer(out, position + codec.headerLength() + frame.length);
            position += codec.headerLength() + frame.length + codec.trailerLength();
        }
        return Arrays.copyOf(out.toArray(ValueLayout.JAVA_BYTE), (int)position);
    }
}
