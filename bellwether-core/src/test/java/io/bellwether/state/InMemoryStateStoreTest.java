package io.bellwether.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.bellwether.elector.StoredState;
import org.junit.jupiter.api.Test;

class InMemoryStateStoreTest {
    @Test
    void savedStateIsLoadedBackPerGroup() {
        InMemoryStateStore store = new InMemoryStateStore();
        assertThat(store.load("a")).isEqualTo(StoredState.EMPTY);
        store.save("a", StoredState.EMPTY.with("term", 3));
        assertThat(store.load("a").get("term", 0)).isEqualTo(3);
        assertThat(store.load("b")).isEqualTo(StoredState.EMPTY);
    }
}
