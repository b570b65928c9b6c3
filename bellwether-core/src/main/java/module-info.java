/**
 * Bellwether's core: the election API, the SPI users implement (transport, state store, lease store), the
 * algorithm registry and each algorithm's configuration, and the state stores. The runtime that drives the
 * electors is not exported: only Bellwether's own modules that need it may read it.
 */
// "module": the qualified export below names Bellwether's own modules, which are not on core's module path when it
// compiles (they depend on it).
@SuppressWarnings("module")
module io.bellwether.core {
    // Transitive: the elector helpers an algorithm uses take an SLF4J Logger, and the library logs through SLF4J.
    requires transitive org.slf4j;

    exports io.bellwether;
    exports io.bellwether.spi;
    exports io.bellwether.elector;
    exports io.bellwether.state;
    exports io.bellwether.quorum;
    exports io.bellwether.lease;
    exports io.bellwether.bully;
    exports io.bellwether.ring;
    exports io.bellwether.invitation;
    exports io.bellwether.inprocess;

    // The rehearsal and the fatal-error handler (the node daemon) are internal, used by the node daemon only.
    exports io.bellwether.runtime to
            io.bellwether.server;

    // Algorithms finds plug-in algorithms through ServiceLoader.
    uses io.bellwether.elector.Algorithm;
}
