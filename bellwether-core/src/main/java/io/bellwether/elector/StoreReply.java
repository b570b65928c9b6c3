package io.bellwether.elector;

/** The answer to a {@link StoreRequest}. */
public interface StoreReply {}
