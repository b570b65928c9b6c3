/**
 * {@code bellwether demo}: a local cluster of node processes on loopback (with an embedded H2 database for the
 * lease algorithm) and the chaos monkey that kills and pauses them. Internal to the executable jar; the benchmarks
 * reuse its process launcher.
 */
package io.bellwether.server.demo;
