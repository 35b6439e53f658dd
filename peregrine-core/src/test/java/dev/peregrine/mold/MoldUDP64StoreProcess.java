package dev.peregrine.mold;

import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * The other process of {@link MoldUDP64StoreLockTest}, started in a child JVM: {@code <file>} opens the store
 * there, prints {@code opened} or {@code refused: <reason>}, and closes it; {@code refusal <file>} prints what
 * {@link MoldUDP64MessageStore#refusalOf} says of it ({@code refusal: <reason>}, or {@code refusal: none}).
 */
public final class MoldUDP64StoreProcess {
    private MoldUDP64StoreProcess() {
    }

    /**
     * Opens the store named by the one argument, or asks whether it would be refused.
     *
     * @param args the file, or {@code refusal} and the file
     */
    public static void main(final String[] args) {
        if (args[0].equals("refusal")) {
            final String refusal = MoldUDP64MessageStore.refusalOf(Path.of(args[1]));
            System.out.println("refusal: " + (refusal == null ? "none" : refusal));
            return;
        }
        try (MoldUDP64MessageStore store = MoldUDP64MessageStore.mapped(Path.of(args[0]), "FEED", 64, 1 << 16)) {
            System.out.println("opened at " + store.nextSequence());
        } catch (final UncheckedIOException ex) {
            System.out.println("refused: " + ex.getMessage());
        }
    }
}
