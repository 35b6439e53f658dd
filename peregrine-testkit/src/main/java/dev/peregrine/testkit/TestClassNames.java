package dev.peregrine.testkit;

import org.junit.platform.commons.annotation.Testable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds test classes that the build would silently skip. Surefire runs only the classes its includes match (the
 * parent pom: {@value #INCLUDE}, the house rule that test classes end in {@code Test}); a class with test methods
 * under another name compiles, never runs and says nothing. Every module has a {@code TestClassNamingTest} that
 * calls {@link #assertEveryTestClassRuns(Class)}.
 *
 * <p>A test method is one annotated with an annotation that is meta-annotated with JUnit's {@link Testable}:
 * {@code @Test}, {@code @ParameterizedTest}, {@code @RepeatedTest}, {@code @TestFactory}, {@code @TestTemplate},
 * jqwik's {@code @Property} and {@code @Example}, and any other engine's. A class has test methods when it or a
 * superclass or interface declares one.
 */
public final class TestClassNames {
    /** The surefire include of the parent pom, as a path pattern. */
    public static final String INCLUDE = "**/*Test.java";

    private TestClassNames() {
    }

    /**
     * Fails when a class in the compiled tests of the caller's module has test methods but surefire would not run
     * it: a concrete top-level class whose name does not end in {@code Test}, or a nested class that is not a
     * JUnit {@code @Nested} inner class of one.
     *
     * @param anyTestClass a class in the module's compiled tests (its directory is scanned)
     * @throws AssertionError naming every class that would not run
     */
    public static void assertEveryTestClassRuns(final Class<?> anyTestClass) {
        final List<String> skipped = classesSurefireWouldSkip(testClassesDirectory(anyTestClass),
            anyTestClass.getClassLoader(), Set.of());
        if (!skipped.isEmpty()) {
            throw new AssertionError("test classes that surefire (includes " + INCLUDE + ") would never run: " + skipped
                + "; rename each to end in Test (a nested test class must be a @Nested inner class)");
        }
    }

    /**
     * The directory of compiled classes that holds a class.
     *
     * @param anyClass a class loaded from a directory, such as {@code target/test-classes}
     * @return the directory
     */
    public static Path testClassesDirectory(final Class<?> anyClass) {
        try {
            return Path.of(anyClass.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (final URISyntaxException ex) {
            throw new IllegalStateException("code source of " + anyClass.getName(), ex);
        }
    }

    /**
     * The classes under {@code directory} with test methods that surefire would not run.
     *
     * @param directory compiled classes
     * @param loader loads them (without initialising them)
     * @param ignored binary names to leave out, e.g. a deliberately misnamed fixture
     * @return binary names, sorted
     */
    public static List<String> classesSurefireWouldSkip(final Path directory, final ClassLoader loader,
        final Set<String> ignored) {
        final List<String> skipped = new ArrayList<>();
        try (Stream<Path> files = Files.walk(directory)) {
            for (final Path file : (Iterable<Path>)files.filter(f -> f.toString().endsWith(".class")).sorted()::iterator) {
                final String relative = directory.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
                final String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
                if (name.endsWith("module-info") || name.endsWith("package-info") || ignored.contains(name)) {
                    continue;
                }
                final Class<?> type;
                try {
                    type = Class.forName(name, false, loader);
                } catch (final ClassNotFoundException | LinkageError ex) {
                    throw new IllegalStateException("cannot load " + name + " from " + directory, ex);
                }
                if (!Modifier.isAbstract(type.getModifiers()) && !type.isInterface() && hasTestMethods(type)
                    && !surefireRuns(type)) {
                    skipped.add(name);
                }
            }
        } catch (final IOException ex) {
            throw new UncheckedIOException("scanning " + directory, ex);
        }
        return skipped;
    }

    private static boolean surefireRuns(final Class<?> type) {
        if (type.getEnclosingClass() == null) {
            return type.getSimpleName().endsWith("Test");
        }
        // surefire excludes nested classes; JUnit reaches them only as @Nested inner classes of a test class it runs
        return !Modifier.isStatic(type.getModifiers()) && annotatedWith(type.getAnnotations(), "org.junit.jupiter.api.Nested")
            && surefireRuns(type.getEnclosingClass());
    }

    private static boolean hasTestMethods(final Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (declaresTestMethods(c)) {
                return true;
            }
            for (final Class<?> i : c.getInterfaces()) {
                if (hasTestMethods(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean declaresTestMethods(final Class<?> type) {
        for (final Method method : type.getDeclaredMethods()) {
            for (final Annotation annotation : method.getAnnotations()) {
                if (testable(annotation.annotationType(), new HashSet<>())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether an annotation is {@link Testable} or meta-annotated with it at any depth (e.g. {@code @ParameterizedTest}). */
    private static boolean testable(final Class<? extends Annotation> type, final Set<Class<?>> seen) {
        if (type == Testable.class) {
            return true;
        }
        if (!seen.add(type)) {
            return false;
        }
        for (final Annotation meta : type.getAnnotations()) {
            if (testable(meta.annotationType(), seen)) {
                return true;
            }
        }
        return false;
    }

    private static boolean annotatedWith(final Annotation[] annotations, final String typeName) {
        for (final Annotation annotation : annotations) {
            if (annotation.annotationType().getName().equals(typeName)) {
                return true;
            }
        }
        return false;
    }
}
