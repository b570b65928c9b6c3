package io.bellwether.server.cli;

import io.bellwether.server.demo.DemoCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Entry point of the {@code bellwether} command.
 *
 * <p>Exit status: 0 success, 1 an invariant was violated (simulate) or the nodes disagree (status), 2 bad
 * arguments or configuration, 3 an unexpected error.
 */
@Command(
        name = "bellwether",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Leader election for clustered Java software.",
        subcommands = {
            SimulateCommand.class,
            NodeCommand.class,
            DemoCommand.class,
            StatusCommand.class,
            RunCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Callable<Integer> {
    /** Success. */
    public static final int EXIT_OK = 0;
    /** A simulated run violated an invariant; or, for {@code status}, nodes disagree or do not answer. */
    public static final int EXIT_VIOLATION = 1;
    /** The command line or the configuration (a node's file, its state-dir or state files) was wrong. */
    public static final int EXIT_USAGE = 2;
    /** Something unexpected failed; the message says what. */
    public static final int EXIT_ERROR = 3;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(exitStatus(() -> execute(System.out, System.err, args), System.err));
    }

    /**
     * Runs {@code command} and returns its exit status, or {@link #EXIT_ERROR} if it threw anything, even an
     * {@link Error}: {@link #main} must reach {@link System#exit} whatever happened, because a thread that is not a
     * daemon (the JDK HTTP server's dispatcher, say) would otherwise keep a failed node's process alive forever.
     */
    static int exitStatus(IntSupplier command, PrintStream err) {
        try {
            return command.getAsInt();
        } catch (Throwable t) {
            err.println("bellwether: error: " + t);
            t.printStackTrace(err);
            err.flush();
            return EXIT_ERROR;
        }
    }

    /**
     * Runs the command in this process and returns its exit status instead of exiting, so that tests can
     * capture its output.
     */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        PrintWriter outWriter = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
        PrintWriter errWriter = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        try {
            return commandLine(outWriter, errWriter).execute(args);
        } finally {
            outWriter.flush();
            errWriter.flush();
        }
    }

    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler(Main::usageError);
        // run's COMMAND takes every argument after the first positional one as its own, options included.
        cl.getSubcommands().get("run").setStopAtPositional(true);
        cl.setExecutionExceptionHandler((ex, cmd, parseResult) -> {
            cmd.getErr().println("bellwether: error: " + describe(ex));
            return EXIT_ERROR;
        });
        return cl;
    }

    private static int usageError(CommandLine.ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println("bellwether: " + ex.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for more information.");
        return EXIT_USAGE;
    }

    private static String describe(Throwable ex) {
        String message = ex.getMessage();
        return message == null ? ex.getClass().getName() : ex.getClass().getSimpleName() + ": " + message;
    }

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: try 'bellwether simulate'");
    }

    /** Reads the version that the build wrote into {@code version.properties}. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties properties = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("/io/bellwether/server/version.properties")) {
                if (in != null) {
                    properties.load(in);
                }
            }
            return new String[] {
                "bellwether " + properties.getProperty("version", "unknown"),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ")"
            };
        }
    }
}
