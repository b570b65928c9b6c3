package io.bellwether.server.node;

import java.util.Optional;

/**
 * A peer's connection as this node sees it, for the status page.
 *
 * @param address the peer's address; null while it is not known (a discovered peer not found yet)
 * @param state {@code CONNECTED}, {@code CONNECTING}, {@code DISCONNECTED} or {@code UNKNOWN}
 * @param sinceEpochMillis wall-clock time of the last change, when known
 * @param lastError the last connection error, when there was one
 */
public record PeerState(String address, String state, Optional<Long> sinceEpochMillis, Optional<String> lastError) {}
