package dev.peregrine.reactor;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Integer cache probe finds the exact bound, and the test JVMs run with the option the launcher gives every
 * Peregrine JVM: without it, the allocation tests whose sockets sit above descriptor 256 fail in every window.
 */
class SelectorBoxingTest {
    @Test
    void shouldFindTheLastCachedIntegerExactly() {
        final int high = SelectorBoxing.integerCacheHigh();

        assertThat(Integer.valueOf(high)).isSameAs(Integer.valueOf(high));
        assertThat(Integer.valueOf(high + 1)).isNotSameAs(Integer.valueOf(high + 1));
    }

    @Test
    void shouldRunTheTestsWithTheLaunchersIntegerCache() {
        assertThat(SelectorBoxing.integerCacheHigh()).as("the surefire argLine's " + SelectorBoxing.JVM_OPTION)
            .isEqualTo(SelectorBoxing.CACHE_MAX);
        assertThat(SelectorBoxing.allocationFree()).isTrue();
    }
}
