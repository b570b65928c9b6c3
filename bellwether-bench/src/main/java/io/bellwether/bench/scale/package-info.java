/**
 * Many election groups per process: {@link io.bellwether.bench.scale.ScaleGroups} runs {@code G} quorum groups in
 * each of {@code N} member processes ({@link io.bellwether.bench.scale.ScaleNode}) sharing one TCP transport per
 * process, and measures the time to agreement, threads, memory, idle CPU and the re-election after a kill -9. Run
 * by hand, never during the build.
 */
package io.bellwether.bench.scale;
