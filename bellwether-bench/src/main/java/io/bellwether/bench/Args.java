package io.bellwether.bench;

import java.io.PrintStream;
import java.util.OptionalInt;

/** Command-line arguments of the benchmarks' main classes. */
final class Args {
    private Args() {}

    /**
     * {@code text} as a whole number from 1 to {@code max}; or, after telling {@code err} what is wrong and naming
     * the argument {@code name}, empty.
     */
    static OptionalInt count(String name, String text, int max, PrintStream err) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            err.println(name + " must be a whole number 1 to " + max + ", was '" + text + "'");
            return OptionalInt.empty();
        }
        if (n < 1 || n > max) {
            err.println(name + " must be a whole number 1 to " + max + ", was " + n);
            return OptionalInt.empty();
        }
        return OptionalInt.of(n);
    }

    /**
     * The one optional argument of a benchmark that takes a count: {@code args[0]} as {@link #count}, or {@code
     * defaultCount} when there is none; or, after printing the usage line or what is wrong to {@code err}, empty.
     *
     * @param usage the usage line, e.g. {@code "RunnerOrphanKill [ROUNDS]  (default 30)"}
     */
    static OptionalInt onlyCount(String[] args, String name, int defaultCount, int max, String usage, PrintStream err) {
        if (args.length > 1) {
            err.println("usage: " + usage);
            return OptionalInt.empty();
        }
        return args.length == 0 ? OptionalInt.of(defaultCount) : count(name, args[0], max, err);
    }
}
