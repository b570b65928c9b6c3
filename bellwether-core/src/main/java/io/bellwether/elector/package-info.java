/**
 * The contract between the runtime (or the simulator) and an election algorithm, and the algorithm registry.
 * An {@link io.bellwether.elector.Elector} is a pure state machine that acts only through its
 * {@link io.bellwether.elector.ElectorContext}; an {@link io.bellwether.elector.ElectorSpec} is an algorithm
 * with its validated configuration. Each algorithm describes itself once with an
 * {@link io.bellwether.elector.Algorithm} (its name, {@link io.bellwether.elector.Trait traits},
 * {@link io.bellwether.elector.Setting settings} and {@link io.bellwether.elector.Variant variants}), and
 * {@link io.bellwether.elector.Algorithms} lists them: the built-in ones and any plug-in found through
 * {@code ServiceLoader}. Users read the registry or implement these types to add an algorithm; the shared
 * helpers here (quorum arithmetic, counters, configuration checks) serve the algorithm packages.
 */
package io.bellwether.elector;
