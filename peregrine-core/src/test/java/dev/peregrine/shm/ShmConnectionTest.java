package dev.peregrine.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Creating a connection's ring files when a name is already taken: ring names are the pid and a counter, so a
 * leftover or a process with the same pid in another pid namespace sharing the folder can hold one. The creation
 * fails naming the file, removes only what it created, and leaves the other file, and its content, alone.
 */
class ShmConnectionTest {
    private static final String SOMEONE_ELSES = "someone else's live ring";

    @TempDir
    Path dir;

    @Test
    void shouldFailAndLeaveAnotherRingFileAloneWhenTheServerToClientNameIsTaken() throws IOException {
        final long next = ShmRingFile.nextPairId() + 1; // the pair id the next creation takes
        final Path clientToServer = ShmRingFile.name(dir, "c2s", next);
        final Path serverToClient = ShmRingFile.name(dir, "s2c", next);
        Files.writeString(serverToClient, SOMEONE_ELSES);

        assertCreationRefused(serverToClient);

        assertThat(serverToClient).as("the file that was there before").hasContent(SOMEONE_ELSES);
        assertThat(clientToServer).as("the ring this creation made").doesNotExist();
        assertThat(filesIn(dir)).containsExactly(serverToClient);
    }

    @Test
    void shouldFailAndLeaveAnotherRingFileAloneWhenTheClientToServerNameIsTaken() throws IOException {
        final long next = ShmRingFile.nextPairId() + 1;
        final Path clientToServer = ShmRingFile.name(dir, "c2s", next);
        Files.writeString(clientToServer, SOMEONE_ELSES);

        assertCreationRefused(clientToServer);

        assertThat(clientToServer).as("the file that was there before").hasContent(SOMEONE_ELSES);
        assertThat(filesIn(dir)).containsExactly(clientToServer);
    }

    private void assertCreationRefused(final Path taken) throws IOException {
        try (SocketChannel socket = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            assertThatThrownBy(() -> ShmConnection.createForClient(socket, new ShmOptions().ringCapacity(64 * 1024)
                .ringDirectory(dir), ShmHandshake.newBuffer(), Arena.ofShared()))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("ring file " + taken + " already exists; refusing to reuse it");
        }
    }

    private static Path[] filesIn(final Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.toArray(Path[]::new);
        }
    }
}
