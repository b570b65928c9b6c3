/**
 * One running node: the daemon that builds the election, its transport or lease store, and the HTTP server from a
 * validated configuration, and the monitor and metrics that observe the election for them. Internal to the
 * executable jar.
 */
package io.bellwether.server.node;
