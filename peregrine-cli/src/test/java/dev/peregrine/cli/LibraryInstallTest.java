package dev.peregrine.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library in someone else's build: {@code ./peregrine install} into a local repository of its own (under
 * target/, reading what ~/.m2 already has through Maven's read-only tail, Maven Central for the rest), then the
 * standalone sample {@code samples/echo-app} builds against it and runs on the module path; and building
 * peregrine-core again gives the same bytes. It works on a copy of the sources so that this build's own
 * target folders are never rebuilt under the running tests.
 */
@Tag("slow")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LibraryInstallTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String VERSION = "0.1.0-SNAPSHOT";
    private final Path work = Path.of("target", "library-install").toAbsolutePath();
    private final Path tree = work.resolve("tree");
    private final Path repository = work.resolve("repository");
    private final Path installed = repository.resolve("dev/peregrine/peregrine-core/" + VERSION);

    @BeforeAll
    void installIntoARepositoryOfItsOwn() throws Exception {
        delete(work);
        copySources();
        run(tree, List.of("bash", tree.resolve("peregrine").toString(), "install", "-Dmaven.repo.local=" + repository,
            tail()), "install");
    }

    @Test
    void shouldInstallTheLibraryWithSourcesAndJavadocAsAModuleExportingOnlyItsApi() throws Exception {
        assertThat(installed.resolve("peregrine-core-" + VERSION + ".pom")).isRegularFile();
        assertThat(installed.resolve("peregrine-core-" + VERSION + "-sources.jar")).isRegularFile();
        assertThat(installed.resolve("peregrine-core-" + VERSION + "-javadoc.jar")).isRegularFile();
        final Path jar = installed.resolve("peregrine-core-" + VERSION + ".jar");
        final ModuleDescriptor module = ModuleFinder.of(jar).findAll().iterator().next().descriptor();
        assertThat(module.name()).isEqualTo("dev.peregrine.core");
        // the JDK's own modules only: java.base, and jdk.jfr for the flight-recorder events
        assertThat(module.requires()).extracting(ModuleDescriptor.Requires::name).containsExactlyInAnyOrder("java.base", "jdk.jfr");
        assertThat(module.exports()).allMatch(export -> !export.source().contains("internal")
            || export.targets().stream().allMatch(target -> target.startsWith("dev.peregrine.")));
        assertThat(module.packages()).contains("dev.peregrine.internal");
    }

    @Test
    void shouldBuildAndRunTheStandaloneSampleOnTheModulePath() throws Exception {
        final Path sample = tree.resolve("samples/echo-app");
        run(sample, List.of(tree.resolve("mvnw").toString(), "-B", "-q", "-Dmaven.repo.local=" + repository, tail(),
            "package"), "sample-build");
        final String output = run(sample, List.of(java(), "--enable-native-access=dev.peregrine.core",
            "-XX:AutoBoxCacheMax=65536",
            "-p", "target/lib:target/echo-app.jar", "-m", "dev.peregrine.samples.echo/dev.peregrine.samples.echo.EchoApp"),
            "sample-run");
        assertThat(output).contains("tcp: sent 'hello over TCP' to process", "got back 'hello over TCP'",
            "shm: sent 'hello over shared memory'", "got back 'hello over shared memory'", "both round trips OK");
        assertThat(sample.resolve("target/lib/peregrine-core-" + VERSION + ".jar")).hasSameBinaryContentAs(
            installed.resolve("peregrine-core-" + VERSION + ".jar"));
    }

    @Test
    void shouldBuildTheSameLibraryJarsTwice() throws Exception {
        final Map<String, String> first = checksums(installed);
        run(tree, List.of(tree.resolve("mvnw").toString(), "-B", "-q", "-pl", "peregrine-core", "-am", "-DskipTests",
            "-Plibrary-artifacts", "-Dmaven.repo.local=" + repository, tail(), "clean", "package"), "rebuild");
        final Map<String, String> second = checksums(tree.resolve("peregrine-core/target"));
        assertThat(first).hasSize(3);
        assertThat(second).as("sha-256 of the jars built again from the same sources").isEqualTo(first);
    }

    private static Map<String, String> checksums(final Path folder) throws Exception {
        final Map<String, String> sums = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (final Path jar : files.filter(f -> f.getFileName().toString().matches("peregrine-core-.*\\.jar")).toList()) {
                sums.put(jar.getFileName().toString(), HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar))));
            }
        }
        return sums;
    }

    /** What ~/.m2 already holds is read from there (Maven 3.9's read-only tail), not downloaded again. */
    private static String tail() {
        final Path home = Path.of(System.getProperty("user.home"), ".m2", "repository");
        return Files.isDirectory(home) ? "-Dmaven.repo.local.tail=" + home : "-Dmaven.repo.local.tail=";
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The sources the install and the sample need, without any target folder; the other modules' poms only. */
    private void copySources() throws IOException {
        for (final String path : List.of("pom.xml", "mvnw", "peregrine", ".mvn", "config", "peregrine-core", "peregrine-testkit",
            "samples/echo-app", "peregrine-examples/pom.xml", "peregrine-peers/pom.xml", "peregrine-bench/pom.xml",
            "peregrine-cli/pom.xml")) {
            copy(ROOT.resolve(path), tree.resolve(path));
        }
    }

    private static void copy(final Path from, final Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (final Path source : walk.filter(p -> !from.relativize(p).toString().matches("(.*/)?target(/.*)?")).toList()) {
                final Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(source, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void delete(final Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(folder)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (final IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
        }
    }

    private String run(final Path directory, final List<String> command, final String name) throws Exception {
        final Path log = work.resolve(name + ".log");
        final ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).directory(directory.toFile())
            .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("MAVEN_OPTS", "--sun-misc-unsafe-memory-access=allow");
        final Process process = builder.start();
        if (!process.waitFor(8, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        final String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(process.isAlive() ? -1 : process.exitValue()).as(name + ": " + String.join(" ", command) + "\n"
            + output.lines().skip(Math.max(0, output.lines().count() - 40)).collect(Collectors.joining("\n"))).isZero();
        return output;
    }
}
