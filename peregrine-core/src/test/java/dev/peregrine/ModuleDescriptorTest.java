package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library is a JPMS module that needs only the JDK's java.base and jdk.jfr (its flight-recorder events; no
 * third-party module) and exports only its API packages.
 */
class ModuleDescriptorTest {
    @Test
    void shouldRequireOnlyJavaBaseAndJdkJfrAndExportOnlyApiPackages() {
        final Path classes = Path.of("target", "classes");
        final ModuleReference reference = ModuleFinder.of(classes).find("dev.peregrine.core").orElseThrow();
        final ModuleDescriptor descriptor = reference.descriptor();
        final Set<String> requires = descriptor.requires().stream().map(ModuleDescriptor.Requires::name)
            .collect(Collectors.toSet());
        assertThat(requires).containsExactlyInAnyOrder("java.base", "jdk.jfr");
        final Set<String> exports = descriptor.exports().stream().map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toSet());
        assertThat(exports).containsExactlyInAnyOrder("dev.peregrine.channel", "dev.peregrine.reactor",
            "dev.peregrine.tcp", "dev.peregrine.udp", "dev.peregrine.mold", "dev.peregrine.shm", "dev.peregrine.counters",
            "dev.peregrine.handoff", "dev.peregrine.soup", "dev.peregrine.broadcast", "dev.peregrine.log");
        // an internal package may be exported only to the project's own modules, never to everyone
        assertThat(descriptor.exports()).allMatch(export -> !export.source().contains("internal")
            || export.isQualified() && export.targets().stream().allMatch(target -> target.startsWith("dev.peregrine.")));
        assertThat(descriptor.packages()).contains("dev.peregrine.internal");
        assertThat(descriptor.isOpen()).isFalse();
        assertThat(descriptor.opens()).isEmpty();
    }
}
