package io.bellwether.server.cli;

import io.bellwether.server.config.ConfigException;
import io.bellwether.server.config.ConfigLoader;
import io.bellwether.server.config.NodeConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The {@code --config} option of the commands that run a node ({@code node}, {@code run}), and its loading. */
final class NodeConfigFile {
    @Option(
            names = "--config",
            required = true,
            paramLabel = "FILE",
            description = "The node's YAML configuration file (see docs/configuration.md).")
    Path path;

    /**
     * The node's configuration; empty, after printing what is wrong with it (as {@code bellwether <command>: ...}),
     * if it cannot be used.
     */
    Optional<NodeConfig> load(String command, PrintWriter err) {
        try {
            return Optional.of(ConfigLoader.load(path));
        } catch (ConfigException e) {
            err.println("bellwether " + command + ": " + e.getMessage());
            err.println("See docs/configuration.md for every key, its default and allowed values.");
            return Optional.empty();
        }
    }
}
