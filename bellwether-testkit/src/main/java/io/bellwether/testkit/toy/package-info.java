/**
 * The toy algorithm: a deliberately simple election that is not part of Bellwether, written the way a sixth
 * algorithm would be, in a package of its own. It is an example plug-in and a test subject, never something to
 * run in production: every member pings every other one, and the lowest id heard from recently (the highest, with
 * {@code highest-wins}) leads, at an epoch above every epoch it has seen. It is safe only without partitions and
 * message loss, which makes it useful both as a passing and as a failing subject.
 *
 * <p>{@link io.bellwether.testkit.toy.ToyAlgorithm} is its descriptor. It is not registered: a test that wants it
 * in {@link io.bellwether.elector.Algorithms} puts a {@code META-INF/services/io.bellwether.elector.Algorithm} file
 * naming it on the class path of a JVM of its own, so that the other tests keep seeing the built-in algorithms
 * alone.
 */
package io.bellwether.testkit.toy;
