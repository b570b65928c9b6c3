/**
 * Internal: the runtime that drives an elector in real time (its event loop, timers, leadership validity and
 * watchdog, listener notifications, the leader-only task runner and the store bridge), reached through
 * {@link io.bellwether.ElectionBuilder}. Not part of the API: the module exports it only to Bellwether's own
 * modules (the node daemon uses the rehearsal and the fatal-error handler), and its types may change in any
 * release.
 */
package io.bellwether.runtime;
