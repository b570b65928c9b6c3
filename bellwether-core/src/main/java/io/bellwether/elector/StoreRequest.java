package io.bellwether.elector;

/** A request from an elector to a shared store (a lease table, a Redis key). */
public interface StoreRequest {}
