package io.bellwether.spi;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LeaseStoreSupportTest {
    @Test
    void acquireOrRenewArgumentsAreCheckedWithTheStoreNamed() {
        assertThatCode(() -> LeaseStoreSupport.checkAcquireOrRenew("g", "h", Duration.ofMillis(1), "s"))
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> LeaseStoreSupport.checkAcquireOrRenew("g", "h", Duration.ZERO, "s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lease duration must be at least 1 ms, got PT0S (store s)");
        assertThatThrownBy(() -> LeaseStoreSupport.checkAcquireOrRenew("g", "h", null, "s"))
                .hasMessage("lease duration must be at least 1 ms, got null (store s)");
        assertThatThrownBy(() -> LeaseStoreSupport.checkAcquireOrRenew("", "h", Duration.ofSeconds(1), "s"))
                .hasMessage("group must be 1 to 200 characters, got '' (store s)");
        assertThatThrownBy(() -> LeaseStoreSupport.checkAcquireOrRenew("g", null, Duration.ofSeconds(1), "s"))
                .hasMessage("holder must be 1 to 200 characters, got null (store s)");
    }
}
