package dev.peregrine.mold;

import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The other process of {@link MoldUDP64StoreLockTest}, started in a child JVM: {@code <file>} opens the store
 * there, prints {@code opened} or {@code refused: <reason>}, and closes it.
 */
public final class MoldUDP64StoreProcess {
    private MoldUDP64StoreProcess() {
    }

    /**
     * Opens the store named by the one argument.
     *
     * @param args the file
     */
    public static void main(final String[] args) {
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(Path.of(args[0]), "FEED", 64, 1 << 16)) {
            System.out.println("opened at " + store.nextSequence());
        } catch (final UncheckedIOException ex) {
            System.out.println("refused: " + ex.getMessage());
        }
    }
}
