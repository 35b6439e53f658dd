package dev.peregrine.tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FrameCodecTest {
    private final List<String> frames = new ArrayList<>();
    private final FrameSink sink = (buffer, offset, length) -> {
        final byte[] bytes = new byte[length];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        frames.add(new String(bytes, StandardCharsets.ISO_8859_1));
        return true;
    };

    private static MemorySegment bytes(final int... values) {
        final MemorySegment segment = Arena.ofAuto().allocate(values.length);
        for (int i = 0; i < values.length; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte)values[i]);
        }
        return segment;
    }

    @Test
    void shouldRejectFourByteLengthOverMaximumWithTheLengthInTheReason() {
        final FrameCodec codec = Framing.parse("length:4be").newCodec(65536);

        assertThat(codec.decode(bytes(0xFF, 0xFF, 0xFF, 0xFF), 0, 4, sink)).isEqualTo(FrameCodec.MALFORMED);
        assertThat(codec.failure()).isEqualTo("frame length 4294967295 exceeds maxFrameLength=65536");
        assertThat(frames).isEmpty();
    }

    @Test
    void shouldRejectNegativeEightByteLength() {
        final FrameCodec codec = Framing.parse("length:8le").newCodec(65536);

        assertThat(codec.decode(bytes(0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF), 0, 8, sink))
            .isEqualTo(FrameCodec.MALFORMED);
        assertThat(codec.failure()).isEqualTo("frame length -1 is negative");
    }

    @Test
    void shouldRejectSelfCountingLengthSmallerThanItsField() {
        final FrameCodec codec = Framing.parse("length:2be+self").newCodec(100);

        assertThat(codec.decode(bytes(0, 1), 0, 2, sink)).isEqualTo(FrameCodec.MALFORMED);
        assertThat(codec.failure()).contains("smaller than the field itself");
    }

    @Test
    void shouldDecodeSelfCountingLength() {
        final FrameCodec codec = Framing.parse("length:2le+self").newCodec(100);

        assertThat(codec.decode(bytes(5, 0, 'a', 'b', 'c', 2, 0, 7), 0, 8, sink)).isEqualTo(7);
        assertThat(frames).containsExactly("abc", "");
    }

    @Test
    void shouldCapMaximumToWhatTheLengthFieldCanExpress() {
        assertThat(Framing.parse("length:1be").effectiveMaxFrameLength(65536)).isEqualTo(255);
        assertThat(Framing.parse("length:1be+self").effectiveMaxFrameLength(65536)).isEqualTo(254);
        assertThat(Framing.parse("length:2le").effectiveMaxFrameLength(65536)).isEqualTo(65535);
        assertThat(Framing.parse("length:4le").effectiveMaxFrameLength(65536)).isEqualTo(65536);
    }

    @Test
    void shouldFindDelimiterSplitAcrossReads() {
        final FrameCodec codec = Framing.crlf().newCodec(100);
        final MemorySegment buffer = bytes('a', 'b', '\r', '\n', 'c', '\r', '\n');

        assertThat(codec.decode(buffer, 0, 3, sink)).isZero();
        assertThat(codec.decode(buffer, 0, 4, sink)).isEqualTo(4);
        assertThat(codec.decode(buffer, 4, 3, sink)).isEqualTo(3);
        assertThat(frames).containsExactly("ab", "c");
    }

    @Test
    void shouldRejectLineLongerThanMaximumBeforeItsDelimiterArrives() {
        final FrameCodec codec = Framing.line().newCodec(3);

        assertThat(codec.decode(bytes('a', 'b', 'c', 'd'), 0, 4, sink)).isEqualTo(FrameCodec.MALFORMED);
        assertThat(codec.failure()).contains("exceeds maxFrameLength=3");
    }

    @Test
    void shouldRejectDelimitedFrameLongerThanMaximum() {
        final FrameCodec codec = Framing.line().newCodec(3);

        assertThat(codec.decode(bytes('a', 'b', 'c', 'd', '\n'), 0, 5, sink)).isEqualTo(FrameCodec.MALFORMED);
        assertThat(codec.failure()).isEqualTo("frame length 4 exceeds maxFrameLength=3");
    }

    @Test
    void shouldStopDecodingWhenSinkSaysSo() {
        final FrameCodec codec = Framing.fixed(1).newCodec(1);

        assertThat(codec.decode(bytes('a', 'b', 'c'), 0, 3, (buffer, offset, length) -> false)).isEqualTo(1);
    }

    @Test
    void shouldParseAndPrintEverySpec() {
        for (final String spec : List.of("raw", "fixed:16", "length:1be", "length:2be", "length:4le", "length:8be+self",
            "line", "crlf", "delimiter:00ff")) {
            assertThat(Framing.parse(spec).toString()).isEqualTo(spec);
        }
        assertThat(Framing.parse("length:4le")).isEqualTo(Framing.lengthPrefixed(4, ByteOrder.LITTLE_ENDIAN, false));
    }

    @Test
    void shouldExplainAnInvalidSpec() {
        assertThatThrownBy(() -> Framing.parse("length:3be")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("framing=length:3be").hasMessageContaining("width=3");
        assertThatThrownBy(() -> Framing.parse("bogus")).hasMessageContaining("expected raw | fixed:N");
    }

    // the reason was Java's own ("For input string: ...", "string length not even: 1")
    @Test
    void shouldExplainANumberOrHexInASpecInItsOwnWords() {
        assertThatThrownBy(() -> Framing.parse("fixed:99999999999"))
            .hasMessageContaining("length=99999999999 is not a whole number up to 2147483647")
            .hasMessageNotContaining("input string");
        assertThatThrownBy(() -> Framing.parse("fixed:abc")).hasMessageContaining("length=abc is not a whole number");
        assertThatThrownBy(() -> Framing.parse("length:xbe")).hasMessageContaining("width=x is not a whole number");
        assertThatThrownBy(() -> Framing.parse("delimiter:0"))
            .hasMessageContaining("delimiter=0 is not hexadecimal bytes (two digits a byte, e.g. 0d0a)")
            .hasMessageNotContaining("string length");
        assertThatThrownBy(() -> Framing.parse("delimiter:0g")).hasMessageContaining("delimiter=0g is not hexadecimal");
    }
}
