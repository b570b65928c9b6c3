/**
 * The reports of {@code bellwether simulate}: the figures of a random exploration (counts, failover percentiles,
 * violations) and their text, JSON and self-contained HTML renderings with a leadership timeline. Internal to the
 * executable jar; the benchmarks reuse the summary.
 */
package io.bellwether.server.report;
