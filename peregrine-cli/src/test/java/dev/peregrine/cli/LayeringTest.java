package dev.peregrine.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The layout shows the architecture, and this keeps it so. Every main source file of every module is read; each
 * reference to a {@code dev.peregrine} package in code (an import, or a fully qualified name; comments and string
 * literals are left out) is an edge of the package graph. The rules:
 * <ul>
 *   <li>a module uses only the modules below it: core &lt;- peers &lt;- bench &lt;- cli, examples beside bench on
 *       core only, testkit on nothing of ours ({@link #ALLOWED});</li>
 *   <li>nothing outside the command line references it (a package with a {@code cli} segment: the rule that held
 *       inside peregrine-bench before the command line had a module of its own);</li>
 *   <li>no package-level cycle anywhere (Tarjan's strongly connected components, each printed with one cycle).</li>
 * </ul>
 * The tree read is the repository this module sits in, or {@code -Dperegrine.layering.root=DIR} for another
 * checkout (how the old layout was shown to fail).
 */
class LayeringTest {
    /** Which modules each module's main sources may reference (itself included). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
        "peregrine-testkit", Set.of("peregrine-testkit"),
        "peregrine-core", Set.of("peregrine-core"),
        "peregrine-examples", Set.of("peregrine-core", "peregrine-examples"),
        "peregrine-peers", Set.of("peregrine-core", "peregrine-peers"),
        "peregrine-bench", Set.of("peregrine-core", "peregrine-peers", "peregrine-bench"),
        "peregrine-cli", Set.of("peregrine-core", "peregrine-peers", "peregrine-bench", "peregrine-examples",
            "peregrine-cli"));
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.peregrine(?:\\s*\\.\\s*[A-Za-z_$][\\w$]*)+");

    /** One reference: from a package, in a file at a line, to a package, as written. */
    record Reference(String from, String to, Path file, int line, String text) {
        @Override
        public String toString() {
            return file + ":" + line + " " + text;
        }
    }

    /** One main source file: its module, its package, and its code with comments and literals blanked. */
    record Source(String module, Path file, String pkg, String code) {
    }

    @Test
    void shouldReferenceOnlyTheModulesBelowAndNeverTheCommandLineFromOutsideIt() {
        final List<Source> sources = sources(root());
        final Map<String, String> moduleOf = moduleOfPackage(sources);
        final List<String> violations = new ArrayList<>();
        assertThat(sources).as("main sources under " + root()).hasSizeGreaterThan(100);
        for (final String module : modules(sources)) {
            if (!ALLOWED.containsKey(module)) {
                violations.add(module + ": a module with no place in the layering; add it to LayeringTest.ALLOWED");
            }
        }
        for (final Reference reference : references(sources, moduleOf, violations)) {
            final String fromModule = moduleOf.get(reference.from());
            final String toModule = moduleOf.get(reference.to());
            final Set<String> allowed = ALLOWED.getOrDefault(fromModule, Set.of());
            if (!allowed.contains(toModule)) {
                violations.add(fromModule + " -> " + toModule + ": " + reference);
            }
            if (isCommandLine(reference.to()) && !isCommandLine(reference.from())) {
                violations.add(reference.from() + " -> " + reference.to() + " (the command line): " + reference);
            }
        }
        assertThat(violations).as("references against the layering").isEmpty();
    }

    @Test
    void shouldHaveNoPackageCycle() {
        final List<Source> sources = sources(root());
        final Map<String, String> moduleOf = moduleOfPackage(sources);
        final List<String> unknown = new ArrayList<>();
        final List<Reference> references = references(sources, moduleOf, unknown);
        assertThat(unknown).as("references to packages no module declares").isEmpty();
        assertThat(cycles(moduleOf.keySet(), references)).as("package cycles").isEmpty();
    }

    @Test
    void shouldReadReferencesInCodeAndNotInCommentsOrStrings() {
        final String source = """
            package dev.peregrine.a;
            import dev.peregrine.b.B; // dev.peregrine.c.C in a comment
            /** {@link dev.peregrine.c.C} */
            class A { Object x = dev.peregrine.d.D.make("dev.peregrine.c.C\\\\", '\\''); Object y = dev.peregrine.e
                .E.class; String z = \"""
                dev.peregrine.c.C
                \"""; char q = '"'; Object w = dev.peregrine.f.F.class; }
            """;
        final String code = blank(source);
        final List<String> found = new ArrayList<>();
        final Matcher matcher = REFERENCE.matcher(code);
        while (matcher.find()) {
            found.add(packageOf(matcher.group()));
        }
        assertThat(found).containsExactly("dev.peregrine.a", "dev.peregrine.b", "dev.peregrine.d", "dev.peregrine.e",
            "dev.peregrine.f");
        assertThat(code.lines().count()).isEqualTo(source.lines().count());
    }

    @Test
    void shouldPrintEachCycleWithTheReferencesThatMakeIt() {
        final Path file = Path.of("X.java");
        final List<Reference> references = List.of(new Reference("p.a", "p.b", file, 1, "p.b.B"),
            new Reference("p.b", "p.c", file, 2, "p.c.C"), new Reference("p.c", "p.a", file, 3, "p.a.A"),
            new Reference("p.c", "p.d", file, 4, "p.d.D"), new Reference("p.e", "p.e2", file, 5, "p.e2.E"));
        final List<String> cycles = cycles(Set.of("p.a", "p.b", "p.c", "p.d", "p.e", "p.e2"), references);
        assertThat(cycles).containsExactly("p.a -> p.b -> p.c -> p.a\n  p.a -> p.b: X.java:1 p.b.B\n"
            + "  p.b -> p.c: X.java:2 p.c.C\n  p.c -> p.a: X.java:3 p.a.A");
    }

    private static Path root() {
        final String configured = System.getProperty("peregrine.layering.root");
        return (configured == null ? Path.of("..") : Path.of(configured)).toAbsolutePath().normalize();
    }

    private static boolean isCommandLine(final String pkg) {
        return List.of(pkg.split("\\.")).contains("cli");
    }

    private static Set<String> modules(final List<Source> sources) {
        final Set<String> modules = new TreeSet<>();
        sources.forEach(source -> modules.add(source.module()));
        return modules;
    }

    private static List<Source> sources(final Path root) {
        final List<Source> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (final Path module : modules.filter(m -> m.getFileName().toString().startsWith("peregrine-")).sorted().toList()) {
                final Path main = module.resolve("src/main/java");
                if (!Files.isDirectory(main)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(main)) {
                    for (final Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                        if (file.getFileName().toString().equals("module-info.java")) {
                            continue; // a module name, not a package reference
                        }
                        final String code = blank(Files.readString(file, StandardCharsets.UTF_8));
                        final Matcher pkg = PACKAGE.matcher(code);
                        assertThat(pkg.find()).as(file + " has no package line").isTrue();
                        sources.add(new Source(module.getFileName().toString(), root.relativize(file), pkg.group(1), code));
                    }
                }
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("cannot read the sources under " + root, ex);
        }
        return sources;
    }

    private static Map<String, String> moduleOfPackage(final List<Source> sources) {
        final Map<String, String> moduleOf = new TreeMap<>();
        for (final Source source : sources) {
            final String before = moduleOf.putIfAbsent(source.pkg(), source.module());
            assertThat(before == null || before.equals(source.module()))
                .as("package " + source.pkg() + " is split between " + before + " and " + source.module()).isTrue();
        }
        return moduleOf;
    }

    /** Every reference to another package; one to a package no module declares is added to {@code unknown}. */
    private static List<Reference> references(final List<Source> sources, final Map<String, String> moduleOf,
                                              final List<String> unknown) {
        final List<Reference> references = new ArrayList<>();
        for (final Source source : sources) {
            final Matcher matcher = REFERENCE.matcher(source.code());
            while (matcher.find()) {
                final String text = matcher.group().replaceAll("\\s", "");
                final String to = packageOf(text);
                final int line = (int) source.code().substring(0, matcher.start()).chars().filter(c -> c == '\n').count() + 1;
                final Reference reference = new Reference(source.pkg(), to, source.file(), line, text);
                if (!moduleOf.containsKey(to)) {
                    unknown.add("unknown package " + to + ": " + reference);
                } else if (!to.equals(source.pkg())) {
                    references.add(reference);
                }
            }
        }
        return references;
    }

    /** The package of a qualified name: its segments up to the first that starts with a capital (a type). */
    private static String packageOf(final String qualified) {
        final StringBuilder pkg = new StringBuilder();
        for (final String segment : qualified.replaceAll("\\s", "").split("\\.")) {
            if (!segment.isEmpty() && Character.isUpperCase(segment.charAt(0))) {
                break;
            }
            pkg.append(pkg.isEmpty() ? "" : ".").append(segment);
        }
        return pkg.toString();
    }

    /**
     * The source with comments, string and character literals and text blocks replaced by spaces, line breaks
     * kept (so line numbers hold).
     */
    static String blank(final String source) {
        final StringBuilder out = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            final char c = source.charAt(i);
            final String end;
            if (source.startsWith("//", i)) {
                end = "\n";
            } else if (source.startsWith("/*", i)) {
                end = "*/";
            } else if (source.startsWith("\"\"\"", i)) {
                end = "\"\"\"";
            } else if (c == '"' || c == '\'') {
                end = String.valueOf(c);
            } else {
                out.append(c);
                i++;
                continue;
            }
            final int open = end.equals("\n") ? 2 : end.length() == 3 ? 3 : end.equals("*/") ? 2 : 1;
            int j = i + open;
            while (j < source.length() && !source.startsWith(end, j)) {
                j += source.charAt(j) == '\\' && !end.equals("\n") && !end.equals("*/") ? 2 : 1;
            }
            final int stop = Math.min(source.length(), end.equals("\n") ? j : j + end.length());
            for (int k = i; k < stop; k++) {
                out.append(source.charAt(k) == '\n' ? '\n' : ' ');
            }
            i = stop;
        }
        return out.toString();
    }

    /** Tarjan's strongly connected components of the package graph; each with more than one package, as a cycle. */
    static List<String> cycles(final Set<String> packages, final List<Reference> references) {
        final Map<String, Map<String, Reference>> edges = new TreeMap<>();
        for (final String pkg : packages) {
            edges.put(pkg, new TreeMap<>());
        }
        for (final Reference reference : references) {
            edges.computeIfAbsent(reference.from(), k -> new TreeMap<>()).putIfAbsent(reference.to(), reference);
            edges.computeIfAbsent(reference.to(), k -> new TreeMap<>());
        }
        final Tarjan tarjan = new Tarjan(edges);
        final List<String> cycles = new ArrayList<>();
        for (final Set<String> component : tarjan.components()) {
            if (component.size() > 1) {
                cycles.add(describe(component, edges));
            }
        }
        Collections.sort(cycles);
        return cycles;
    }

    /** One cycle through the component's first package (a shortest path back to it), with a reference per edge. */
    private static String describe(final Set<String> component, final Map<String, Map<String, Reference>> edges) {
        final String start = new TreeSet<>(component).first();
        final Map<String, String> previous = new HashMap<>();
        final Deque<String> queue = new ArrayDeque<>(List.of(start));
        String last = null;
        while (!queue.isEmpty() && last == null) {
            final String at = queue.poll();
            for (final String next : edges.get(at).keySet()) {
                if (!component.contains(next)) {
                    continue;
                }
                if (next.equals(start)) {
                    last = at;
                    break;
                }
                if (!previous.containsKey(next)) {
                    previous.put(next, at);
                    queue.add(next);
                }
            }
        }
        final List<String> path = new ArrayList<>();
        for (String at = last; at != null && !at.equals(start); at = previous.get(at)) {
            path.add(0, at);
        }
        path.add(0, start);
        path.add(start);
        final StringBuilder text = new StringBuilder(String.join(" -> ", path));
        for (int i = 0; i + 1 < path.size(); i++) {
            text.append("\n  ").append(path.get(i)).append(" -> ").append(path.get(i + 1)).append(": ")
                .append(edges.get(path.get(i)).get(path.get(i + 1)));
        }
        final Set<String> others = new TreeSet<>(component);
        others.removeAll(path);
        if (!others.isEmpty()) {
            text.append("\n  and in cycles with these: ").append(String.join(", ", others));
        }
        return text.toString();
    }

    /** Tarjan's algorithm, recursive: a few hundred packages at most. */
    private static final class Tarjan {
        private final Map<String, Map<String, Reference>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new LinkedHashSet<>();
        private final List<Set<String>> components = new ArrayList<>();

        Tarjan(final Map<String, Map<String, Reference>> edges) {
            this.edges = edges;
        }

        List<Set<String>> components() {
            for (final String pkg : edges.keySet()) {
                if (!index.containsKey(pkg)) {
                    visit(pkg);
                }
            }
            return components;
        }

        private void visit(final String pkg) {
            index.put(pkg, index.size());
            low.put(pkg, index.get(pkg));
            stack.push(pkg);
            onStack.add(pkg);
            for (final String next : edges.get(pkg).keySet()) {
                if (!index.containsKey(next)) {
                    visit(next);
                    low.put(pkg, Math.min(low.get(pkg), low.get(next)));
                } else if (onStack.contains(next)) {
                    low.put(pkg, Math.min(low.get(pkg), index.get(next)));
                }
            }
            if (low.get(pkg).equals(index.get(pkg))) {
                final Set<String> component = new LinkedHashSet<>();
                String member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(pkg));
                components.add(component);
            }
        }
    }
}
