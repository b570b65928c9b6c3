/**
 * {@link io.bellwether.inprocess.InProcessNetwork}: a {@link io.bellwether.spi.Transport} for elections whose
 * members all live in one JVM, for tests and examples. It keeps the transport contract (best effort, closings
 * reported to both ends, departures proven) and can cut, heal and pause links, so tests can script failures
 * without sockets.
 */
package io.bellwether.inprocess;
