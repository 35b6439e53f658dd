package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The library is a JPMS module that needs only java.base and exports only its API packages. */
class ModuleDescriptorTest {
    @Test
    void shouldRequireOnlyJavaBaseAndExportOnlyApiPackages() {
        final Path classes = Path.of("target", "classes");
        final ModuleReference reference = ModuleFinder.of(classes).find("dev.peregrine.core").orElseThrow();
        final ModuleDescriptor descriptor = reference.descriptor();
        final Set<String> requires = descriptor.requires().stream().map(ModuleDescriptor.Requires::name)
            .collect(Collectors.toSet());
        assertThat(requires).containsExactly("java.base");
        final Set<String> exports = descriptor.exports().stream().map(ModuleDescriptor.Exports::source)
            .collect(Collectors.toSet());
        assertThat(exports).contains("dev.peregrine.channel", "dev.peregrine.reactor")
            .doesNotContain("dev.peregrine.internal")
            .allMatch(name -> name.startsWith("dev.peregrine."));
        assertThat(descriptor.packages()).contains("dev.peregrine.internal");
        assertThat(descriptor.isOpen()).isFalse();
        assertThat(descriptor.opens()).isEmpty();
    }
}
