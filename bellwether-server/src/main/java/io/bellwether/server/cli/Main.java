package io.bellwether.server.cli;

/** Entry point of the {@code bellwether} command. (Filled in by the CLI work.) */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.err.println("not yet implemented");
        System.exit(2);
    }
}
