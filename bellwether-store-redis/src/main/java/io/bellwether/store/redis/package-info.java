/**
 * A {@link io.bellwether.spi.LeaseStore} on Redis: {@link io.bellwether.store.redis.RedisLeaseStore} keeps each
 * group's lease in a hash and changes it with Lua compare-and-set scripts on the server's clock; a released lease
 * wakes the waiting members through pub/sub. Failures arrive as
 * {@link io.bellwether.store.redis.RedisLeaseStoreException}. See {@code docs/lease-stores.md}.
 */
package io.bellwether.store.redis;
