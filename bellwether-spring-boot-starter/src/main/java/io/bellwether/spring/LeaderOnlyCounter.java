package io.bellwether.spring;

/** Counts what {@link LeaderOnly} methods did; the Micrometer binding implements it. */
interface LeaderOnlyCounter {
    /** A call was not run: this instance did not lead {@code group}. */
    void skipped(String group, String method);

    /** A run was interrupted because its leadership of {@code group} was revoked. */
    void revoked(String group, String method);
}
