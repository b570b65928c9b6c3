/**
 * The ring election algorithm (Chang and Roberts, LeLann; the id-accumulating variant): an election message
 * travels the ring of members sorted by id, collecting live ids, and the highest one is announced coordinator.
 * Users configure it with {@link io.bellwether.ring.RingConfig}; the elector, messages and codec are used by the
 * runtime and the simulator. See {@code docs/algorithms.md}.
 */
package io.bellwether.ring;
