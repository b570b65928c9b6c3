/**
 * The {@code bellwether} command line (picocli): {@code node}, {@code status}, {@code simulate} and the entry
 * point that dispatches to them and to {@code demo}, with the signal handling that turns SIGTERM and SIGINT into
 * an orderly stop. Internal to the executable jar; the options are documented in {@code docs/configuration.md}.
 */
package io.bellwether.server.cli;
