package io.bellwether.runtime;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when an {@link Error} (an {@link OutOfMemoryError}, a {@link StackOverflowError}, any other {@link
 * VirtualMachineError}, or an Error thrown by an elector or a listener) escapes a task on an election's threads:
 * its event loop (the transport's I/O thread, or the shared loop pool), and the shared timer, callback pool and store
 * pool its watchdog, listeners and store caller run on ({@link RuntimeThreads}).
 *
 * <p>Without this, such an error is caught and logged by whatever runs the thread (a Netty event loop logs it and
 * carries on; a JDK executor swallows it into a future or replaces the thread) and the member lives on with an
 * election that may no longer heartbeat, time out or step down, while its peers still see its connections up: a
 * zombie. A crashed member is safe; a zombie is not. A process that runs elections for a living should therefore
 * {@linkplain #handler(Handler) install} a handler that ends the process, as the {@code bellwether node} daemon
 * does ({@code Runtime.halt}).
 *
 * <p>The library's default, {@link #LOG_AND_RETHROW}, logs the error at ERROR and rethrows it, leaving the
 * decision to the application and to what runs the thread. Thread-safe.
 */
public final class FatalErrors {
    private static final Logger log = LoggerFactory.getLogger(FatalErrors.class);

    /** Told of an Error on an election thread. */
    @FunctionalInterface
    public interface Handler {
        /**
         * Called on the thread that threw, before the error is rethrown. May end the process (and should, in a
         * daemon); must not throw.
         */
        void onFatalError(Thread thread, Error error);
    }

    /** The default: log at ERROR; the caller then rethrows. */
    public static final Handler LOG_AND_RETHROW = (thread, error) -> log.error(
            "fatal error on election thread {}; the election may have stopped working", thread.getName(), error);

    private static volatile Handler handler = LOG_AND_RETHROW;

    private FatalErrors() {}

    /** Sets the process-wide handler ({@link #LOG_AND_RETHROW} restores the default). */
    public static void handler(Handler fatalErrorHandler) {
        handler = Objects.requireNonNull(fatalErrorHandler, "fatalErrorHandler");
    }

    /** The handler in force. */
    public static Handler handler() {
        return handler;
    }

    /** Hands {@code error} to the handler; a handler that throws is logged, never masks {@code error}. */
    static void report(Error error) {
        Thread thread = Thread.currentThread();
        try {
            handler.onFatalError(thread, error);
        } catch (Throwable t) {
            error.addSuppressed(t);
        }
    }

    /** {@code task}, reporting any Error it throws before rethrowing it. */
    static Runnable guard(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (Error e) {
                report(e);
                throw e;
            }
        };
    }

    /**
     * For threads whose executor rethrows what a task threw (the shared pools, {@link RuntimeThreads}): reports
     * Errors.
     */
    static void uncaught(Thread thread, Throwable error) {
        if (error instanceof Error e) {
            report(e);
        } else {
            log.error("uncaught exception on election thread {}", thread.getName(), error);
        }
    }
}
