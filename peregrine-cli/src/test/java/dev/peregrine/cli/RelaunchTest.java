package dev.peregrine.cli;

import dev.peregrine.bench.transports.Transports;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RelaunchTest {
    @Test
    void shouldJoinOptionsWithSeparateValuesAsTheJvmReportsThem() {
        assertThat(Relaunch.normalize(List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx1g",
            "--enable-native-access=ALL-UNNAMED")))
            .containsExactly("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx1g",
                "--enable-native-access=ALL-UNNAMED");
    }

    @Test
    void shouldFindNothingMissingForTransportsWithoutJvmOptions() {
        assertThat(Relaunch.missing(List.of(Transports.byName("test-mem")))).isEmpty();
    }
}
