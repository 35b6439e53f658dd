package dev.peregrine.tcp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden wire vectors for every length framing (widths 1, 2, 4, 8; both byte orders; with and without
 * {@code +self}), produced by Python's {@code struct} (golden/length_framing_vectors.py, checked in beside its
 * output), not by Peregrine: the encoder writes exactly those bytes and the decoder reads them back.
 */
class LengthFramingGoldenTest {
    private static final String VECTORS = "golden/length-framing-vectors.txt";
    private static final int MAX = 100_000;

    record Vector(String kind, String spec, int length, byte[] bytes) {
        @Override
        public String toString() {
            return kind + " " + spec + (kind.equals("header") ? " payload " + length : "");
        }
    }

    static List<Vector> vectors() {
        final List<Vector> vectors = new ArrayList<>();
        try (InputStream in = LengthFramingGoldenTest.class.getResourceAsStream(VECTORS)) {
            assertThat(in).as(VECTORS).isNotNull();
            final BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                final String[] fields = line.split(" ");
                vectors.add(fields[0].equals("header")
                    ? new Vector("header", fields[1], Integer.parseInt(fields[2]), HexFormat.of().parseHex(fields[3]))
                    : new Vector(fields[0], fields[1], -1, HexFormat.of().parseHex(fields[2])));
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return vectors;
    }

    static List<Vector> headers() {
        return vectors().stream().filter(v -> v.kind().equals("header")).toList();
    }

    static List<Vector> streams() {
        return vectors().stream().filter(v -> v.kind().equals("stream")).toList();
    }

    /** The payload of length n, the same rule as the Python script's. */
    private static byte[] payload(final int length) {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte)(i * 7 + 3);
        }
        return bytes;
    }

    @Test
    void shouldCoverEveryWidthOrderAndSelfCount() {
        final Set<String> specs = new TreeSet<>();
        for (final int width : new int[] {1, 2, 4, 8}) {
            for (final String order : new String[] {"be", "le"}) {
                specs.add("length:" + width + order);
                specs.add("length:" + width + order + "+self");
            }
        }
        assertThat(new TreeSet<>(headers().stream().map(Vector::spec).toList())).isEqualTo(specs);
        assertThat(new TreeSet<>(streams().stream().map(Vector::spec).toList())).isEqualTo(specs);
        assertThat(headers()).anyMatch(v -> v.spec().equals("length:1be+self") && v.length() == 254)
            .anyMatch(v -> v.spec().equals("length:2le") && v.length() == 65_535);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("headers")
    void shouldWriteTheGoldenHeaderAndReadTheFrameBack(final Vector vector) {
        final FrameCodec codec = Framing.parse(vector.spec()).newCodec(MAX);
        assertThat(codec.headerLength()).isEqualTo(vector.bytes().length);
        assertThat(codec.trailerLength()).isZero();
        assertThat(codec.maxFrameLength()).isGreaterThanOrEqualTo(vector.length());

        final MemorySegment header = MemorySegment.ofArray(new byte[vector.bytes().length]);
        codec.writeHeader(header, 0, vector.length());
        assertThat(header.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(vector.bytes());

        final byte[] frame = new byte[vector.bytes().length + vector.length()];
        System.arraycopy(vector.bytes(), 0, frame, 0, vector.bytes().length);
        System.arraycopy(payload(vector.length()), 0, frame, vector.bytes().length, vector.length());
        final List<byte[]> decoded = new ArrayList<>();
        final FrameCodec decoder = Framing.parse(vector.spec()).newCodec(MAX);
        assertThat(decoder.decode(MemorySegment.ofArray(frame), 0, frame.length - 1, collect(decoded)))
            .as("one byte short").isZero();
        assertThat(decoded).isEmpty();
        assertThat(decoder.decode(MemorySegment.ofArray(frame), 0, frame.length, collect(decoded))).isEqualTo(frame.length);
        assertThat(decoded).hasSize(1);
        assertThat(decoded.getFirst()).isEqualTo(payload(vector.length()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("streams")
    void shouldEncodeTheGoldenStreamAndDecodeItBack(final Vector vector) {
        final FrameCodec codec = Framing.parse(vector.spec()).newCodec(MAX);
        final MemorySegment out = MemorySegment.ofArray(new byte[vector.bytes().length]);
        long position = 0;
        for (final int length : new int[] {0, 1, 5}) {
            codec.writeHeader(out, position, length);
            MemorySegment.copy(payload(length), 0, out, ValueLayout.JAVA_BYTE, position + codec.headerLength(), length);
            codec.writeTrailer(out, position + codec.headerLength() + length);
            position += codec.headerLength() + length + codec.trailerLength();
        }
        assertThat(position).isEqualTo(vector.bytes().length);
        assertThat(out.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(vector.bytes());

        final List<byte[]> decoded = new ArrayList<>();
        assertThat(codec.decode(MemorySegment.ofArray(vector.bytes()), 0, vector.bytes().length, collect(decoded)))
            .isEqualTo(vector.bytes().length);
        assertThat(decoded).hasSize(3);
        assertThat(decoded.get(0)).isEqualTo(payload(0));
        assertThat(decoded.get(1)).isEqualTo(payload(1));
        assertThat(decoded.get(2)).isEqualTo(payload(5));
    }

    private static FrameSink collect(final List<byte[]> decoded) {
        return (buffer, offset, length) -> {
            decoded.add(buffer.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
            return true;
        };
    }
}
