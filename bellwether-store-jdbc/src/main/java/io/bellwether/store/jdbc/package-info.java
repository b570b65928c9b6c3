/**
 * A {@link io.bellwether.spi.LeaseStore} in one SQL table: {@link io.bellwether.store.jdbc.JdbcLeaseStore}, for
 * PostgreSQL, MySQL/MariaDB and H2, pooled by HikariCP. Every statement reads the database's clock, never the
 * caller's; on PostgreSQL a released lease wakes the waiting members through {@code LISTEN/NOTIFY}. Failures
 * arrive as {@link io.bellwether.store.jdbc.JdbcLeaseStoreException}, classified so that a caller can tell an
 * outage from a misconfiguration. The SQL dialects are package-private; see {@code docs/lease-stores.md}.
 */
package io.bellwether.store.jdbc;
