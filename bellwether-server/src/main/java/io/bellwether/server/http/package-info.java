/**
 * A node's HTTP face (Netty): {@code /status}, {@code /cluster}, Prometheus {@code /metrics}, the {@code /events}
 * stream, {@code /healthz} and {@code /readyz}, and the dashboard, each under the limits a hostile client is held
 * to ({@code http-limits}). Internal to the executable jar; the endpoints are documented in
 * {@code docs/configuration.md} and the limits in {@code docs/security.md}.
 */
package io.bellwether.server.http;
