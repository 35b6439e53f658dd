package dev.peregrine.bench.run;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamFloorTest {
    @TempDir
    Path folder;

    @Test
    void shouldParseTheOneLineTheCProgramPrints() {
        final StreamFloor floor = StreamFloor.parse("tcp-stream-c size=256 frames/s=4123456 bytes/s=1071241216\n", 256);

        assertThat(floor).isEqualTo(new StreamFloor(256, 4_123_456, 1_071_241_216));
        assertThat(floor.payloadBytesPerSecond()).isEqualTo(4_123_456.0 * 256);
    }

    @Test
    void shouldAcceptALineWithoutItsEndAndWithDecimals() {
        assertThat(StreamFloor.parse("tcp-stream-c size=32 frames/s=1.5 bytes/s=54.25", 32))
            .isEqualTo(new StreamFloor(32, 1.5, 54.25));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "\n",
        "tcp-stream-c size=256 frames/s=100",
        "tcp-stream-c size=256 bytes/s=100 frames/s=100",
        "tcp-stream-c size=256 frames/s=100 bytes/s=100 extra=1",
        " tcp-stream-c size=256 frames/s=100 bytes/s=100",
        "tcp-stream-c  size=256 frames/s=100 bytes/s=100",
        "tcp-c size=256 frames/s=100 bytes/s=100",
        "tcp-stream-c size=256 frames/s=-100 bytes/s=100",
        "tcp-stream-c size=256 frames/s=1e9 bytes/s=100",
        "tcp-stream-c size=256 frames/s=nan bytes/s=100",
        "tcp-stream-c size=256 frames/s=0 bytes/s=0",
        "tcp-stream-c size=256 frames/s=100 bytes/s=100\ntcp-stream-c size=256 frames/s=100 bytes/s=100\n",
        "warning: something\ntcp-stream-c size=256 frames/s=100 bytes/s=100\n",
        "tcp-stream-c size=256 frames/s=100 bytes/s=100\n\n",
        "tcp-stream-c size=32 frames/s=100 bytes/s=100"})
    void shouldRejectAnythingButExactlyOneWellFormedLineForTheSize(final String output) {
        assertThatThrownBy(() -> StreamFloor.parse(output, 256)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldNameTheSizeWhenItIsNotTheOneAskedFor() {
        assertThatThrownBy(() -> StreamFloor.parse("tcp-stream-c size=32 frames/s=100 bytes/s=100", 256))
            .hasMessageContaining("size=32").hasMessageContaining("expected size=256");
    }

    @Test
    void shouldRunAGivenCommandWithSizeAndSecondsAppended() throws Exception {
        final Path program = script("echo \"tcp-stream-c size=$1 frames/s=1000 bytes/s=$(( 1000 * ($1 + 4) ))\"");

        final StreamFloor.Outcome outcome = StreamFloor.Source.of(program.toString(), false).run(64, 0.5);

        assertThat(outcome.skipped()).isNull();
        assertThat(outcome.command()).endsWith(" 64 0.500");
        assertThat(outcome.result()).isEqualTo(new StreamFloor(64, 1000, 68_000));
    }

    @Test
    void shouldSaySkippedWithTheReasonWhenTheCommandFailsOrPrintsSomethingElse() throws Exception {
        final StreamFloor.Outcome failing = StreamFloor.Source.of(script("echo broken; exit 3").toString(), false)
            .run(64, 0.5);
        final StreamFloor.Outcome garbled = StreamFloor.Source.of(script("echo tcp-stream-c size=$1").toString(), false)
            .run(64, 0.5);
        final StreamFloor.Outcome off = StreamFloor.Source.of(null, true).run(64, 0.5);

        assertThat(failing.result()).isNull();
        assertThat(failing.skipped()).contains("exit code 3", "broken");
        assertThat(garbled.result()).isNull();
        assertThat(garbled.skipped()).contains("is not one line");
        assertThat(off.result()).isNull();
        assertThat(off.skipped()).contains("--no-stream-floor");
    }

    private Path script(final String body) throws Exception {
        final Path file = Files.createTempFile(folder, "stream", ".sh");
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
