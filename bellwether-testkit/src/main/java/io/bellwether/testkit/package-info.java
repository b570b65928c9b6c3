/**
 * Test support for lease stores and integration tests. Whoever implements a
 * {@link io.bellwether.spi.LeaseStore} extends {@link io.bellwether.testkit.LeaseElectionContract} to run whole
 * lease elections against it (the JDBC and Redis stores pass the same contract); {@link
 * io.bellwether.testkit.TcpProxy} black-holes or cuts the connections to a real service, {@link
 * io.bellwether.testkit.Services} skips (or, on CI, fails) a test whose service is down, {@link
 * io.bellwether.testkit.Ports} finds free ports, and {@link io.bellwether.testkit.Logs} prints the last lines of each
 * node's log when a multi-process test fails. Depends on JUnit 5 and AssertJ at compile scope: use it in test scope
 * only.
 */
package io.bellwether.testkit;
