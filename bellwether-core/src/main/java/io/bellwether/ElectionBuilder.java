package io.bellwether;

/** Builds an {@link Election}. (Filled in by the runtime work.) */
public final class ElectionBuilder {
    ElectionBuilder() {}

    public Election build() {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
