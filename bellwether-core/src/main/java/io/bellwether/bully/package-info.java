/**
 * The classic Bully algorithm (the highest-ranked live member coordinates), in its simple mode and in
 * Garcia-Molina's strict mode, which halts every reachable member before a new coordinator takes over. Users
 * configure both with {@link io.bellwether.bully.BullyConfig} ({@code strict(true)} for the strict mode); the
 * electors, messages and codec are used by the runtime and the simulator. See {@code docs/algorithms.md} for
 * what each mode guarantees and costs.
 */
package io.bellwether.bully;
