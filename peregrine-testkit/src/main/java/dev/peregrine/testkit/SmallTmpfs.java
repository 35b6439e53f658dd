package dev.peregrine.testkit;


import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A tmpfs of a few pages mounted on a fresh temporary folder, for the tests of what happens when a file system
 * has no room left (a mapped file must not die of SIGBUS). Mounting needs Linux and root; where either is missing,
 * or the mount fails, the test is skipped and says why.
 */
public final class SmallTmpfs {
    private SmallTmpfs() {
    }

    /**
     * Mounts a tmpfs of {@code size} on a new temporary folder.
     *
     * @param size the tmpfs size option, e.g. {@code 64k} or {@code 1m}
     * @return the mount point; give it to {@link #unmount} once done
     * @throws Exception if the folder cannot be made or mount(8) cannot be run
     */
    public static Path mount(final String size) throws Exception {
        Needs.platform("Linux", System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
            "mounting a tmpfs needs Linux, this is " + System.getProperty("os.name"));
        final Run id = run("id", "-u");
        Needs.privilege("root", "0".equals(id.output()), "mounting a tmpfs needs root, this runs as "
            + System.getProperty("user.name") + " (uid " + id.output() + ")");
        final Path folder = Files.createTempDirectory("peregrine-small-tmpfs");
        final Run mount = run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", folder.toString());
        if (mount.exit() != 0) {
            Files.deleteIfExists(folder);
        }
        Needs.privilege("root with CAP_SYS_ADMIN", mount.exit() == 0, "mount -t tmpfs failed (exit " + mount.exit() + "): "
            + mount.output());
        return folder;
    }

    /**
     * Unmounts a folder {@link #mount} gave and removes it; lazily where something still maps a file there (the
     * kernel frees it when the last mapping goes). Nothing for null.
     *
     * @param mountPoint the mount point, or null
     * @throws Exception if umount(8) cannot be run or the folder not removed
     */
    public static void unmount(final Path mountPoint) throws Exception {
        if (mountPoint == null) {
            return;
        }
        if (run("umount", mountPoint.toString()).exit() != 0) {
            run("umount", "-l", mountPoint.toString());
        }
        Files.deleteIfExists(mountPoint);
    }

    private record Run(int exit, String output) {
    }

    private static Run run(final String... command) throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return new Run(process.waitFor(), output);
    }
}
