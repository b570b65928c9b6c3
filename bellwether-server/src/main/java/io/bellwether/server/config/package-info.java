/**
 * Reading and validating a node's YAML configuration file into a {@code NodeConfig}: every problem in the file is
 * reported at once, each naming its key, the value and what is allowed. Internal to the executable jar; every key
 * is documented in {@code docs/configuration.md}.
 */
package io.bellwether.server.config;
