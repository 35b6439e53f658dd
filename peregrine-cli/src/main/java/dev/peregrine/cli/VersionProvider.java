package dev.peregrine.cli;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * {@code ./peregrine --version}: Peregrine's version, the git commit it was built from (written at build time;
 * {@code unknown} when built outside git) and the JDK running it.
 */
public final class VersionProvider implements IVersionProvider {
    /** Written by the build: {@code version}. */
    static final String VERSION_RESOURCE = "/dev/peregrine/cli/version.properties";
    /** Written by the build from git, absent when built outside git. */
    static final String GIT_RESOURCE = "/dev/peregrine/cli/git.properties";

    /** Creates the provider (picocli). */
    public VersionProvider() {
    }

    @Override
    public String[] getVersion() {
        final Properties version = load(VERSION_RESOURCE);
        final Properties git = load(GIT_RESOURCE);
        final String commit = git.getProperty("git.commit.id", "").trim();
        final boolean dirty = Boolean.parseBoolean(git.getProperty("git.dirty", "false").trim());
        return new String[] {
            "peregrine " + version.getProperty("version", "unknown"),
            "commit " + (commit.isEmpty() || commit.startsWith("${") ? "unknown" : commit + (dirty ? " (with uncommitted changes)" : "")),
            "JDK " + Runtime.version() + " (" + System.getProperty("java.vendor") + ") at " + System.getProperty("java.home"),
        };
    }

    private static Properties load(final String resource) {
        final Properties properties = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream(resource)) {
            if (in != null) {
                properties.load(in);
            }
        } catch (final IOException ex) {
            // an unreadable resource reads as unknown
        }
        return properties;
    }
}
