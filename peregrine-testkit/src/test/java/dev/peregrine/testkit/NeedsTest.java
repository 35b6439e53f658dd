package dev.peregrine.testkit;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NeedsTest {
    @Test
    void shouldFailUnderCiWhenAnInstallableThingIsMissing() {
        assertThatThrownBy(() -> Needs.check(Needs.Kind.INSTALLABLE, "tshark", "not on the PATH", true))
            .isInstanceOf(AssertionFailedError.class)
            .hasMessage("PEREGRINE_CI=1 and this test needs tshark: not on the PATH (.ci/run installs it; see its output)");
    }

    @Test
    void shouldFailUnderCiWhenAPlatformFeatureIsMissing() {
        assertThatThrownBy(() -> Needs.check(Needs.Kind.PLATFORM, "futex", "not Linux", true))
            .isInstanceOf(AssertionFailedError.class)
            .hasMessage("PEREGRINE_CI=1 and this test needs futex: not Linux (CI runs on Linux)");
    }

    @Test
    void shouldSkipUnderCiWhenAPrivilegeIsMissing() {
        assertThatThrownBy(() -> Needs.check(Needs.Kind.PRIVILEGE, "root", "ip netns add failed", true))
            .isInstanceOf(TestAbortedException.class)
            .hasMessage("needs root: ip netns add failed");
    }

    @Test
    void shouldSkipUnderCiWhenTheMachineIsSetUpOtherwise() {
        assertThatThrownBy(() -> Needs.check(Needs.Kind.CONFIGURATION, "IPv6 loopback", "no ::1", true))
            .isInstanceOf(TestAbortedException.class)
            .hasMessage("needs IPv6 loopback: no ::1");
    }

    @Test
    void shouldSkipWithTheReasonOutsideCi() {
        for (final Needs.Kind kind : Needs.Kind.values()) {
            assertThatThrownBy(() -> Needs.check(kind, "chromium", "not at /usr/bin/chromium", false))
                .isInstanceOf(TestAbortedException.class)
                .hasMessage("needs chromium: not at /usr/bin/chromium");
        }
    }

    @Test
    void shouldPassWhenPresent() {
        for (final Needs.Kind kind : Needs.Kind.values()) {
            assertThatCode(() -> Needs.check(kind, "chromium", null, true)).doesNotThrowAnyException();
            assertThatCode(() -> Needs.check(kind, "chromium", null, false)).doesNotThrowAnyException();
        }
        assertThatCode(() -> Needs.installable("a thing", true, "unused")).doesNotThrowAnyException();
        assertThatCode(() -> Needs.privilege("root", true, "unused")).doesNotThrowAnyException();
    }
}
