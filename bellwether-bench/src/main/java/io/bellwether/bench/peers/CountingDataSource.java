package io.bellwether.bench.peers;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts the JDBC statements run through it: every call of {@code execute}, {@code
 * executeQuery}, {@code executeUpdate}, {@code executeBatch}, {@code executeLargeUpdate} or {@code
 * executeLargeBatch} on a {@link Statement}, {@link PreparedStatement} or {@link CallableStatement} made from one
 * of its connections counts one, whether it succeeds or fails. Transaction control ({@code commit}, {@code
 * rollback}, {@code setAutoCommit}) and the pool's own connection checks are not statements and are not counted.
 *
 * <p>Made of {@link Proxy dynamic proxies} over the wrapped data source, its connections and their statements,
 * so it works with any driver and pool. {@code unwrap} and {@code isWrapperFor} answer for the proxy itself first
 * and then ask the wrapped object (so {@code unwrap(PGConnection.class)} reaches the driver's connection);
 * {@code getConnection()} of a statement returns the counting connection it came from. Proxies are equal only to
 * themselves. Thread-safe.
 */
public final class CountingDataSource {
    private static final Set<String> EXECUTIONS = Set.of(
            "execute", "executeQuery", "executeUpdate", "executeBatch", "executeLargeUpdate", "executeLargeBatch");

    private final LongAdder statements = new LongAdder();
    private final DataSource dataSource;

    private CountingDataSource(DataSource target) {
        this.dataSource = (DataSource) Proxy.newProxyInstance(
                CountingDataSource.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                new Forwarder(target, null));
    }

    /** A counter over {@code target}; hand {@link #dataSource()} to the code whose statements are to be counted. */
    public static CountingDataSource wrap(DataSource target) {
        return new CountingDataSource(Objects.requireNonNull(target, "target"));
    }

    /** The counting data source. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Statements executed through {@link #dataSource()} since it was made. */
    public long statements() {
        return statements.sum();
    }

    /** Forwards every call to {@code target}, wrapping connections and statements it hands out. */
    private final class Forwarder implements InvocationHandler {
        private final Object target;
        /** The counting connection a statement came from; null for the data source and connections. */
        private final Connection owner;

        Forwarder(Object target, Connection owner) {
            this.target = target;
            this.owner = owner;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            int arity = args == null ? 0 : args.length;
            switch (name) {
                case "equals" -> {
                    if (arity == 1) {
                        return proxy == args[0];
                    }
                }
                case "hashCode" -> {
                    if (arity == 0) {
                        return System.identityHashCode(proxy);
                    }
                }
                case "toString" -> {
                    if (arity == 0) {
                        return "counting " + target;
                    }
                }
                case "unwrap" -> {
                    if (arity == 1 && args[0] instanceof Class<?> iface && iface.isInstance(proxy)) {
                        return proxy;
                    }
                }
                case "isWrapperFor" -> {
                    if (arity == 1 && args[0] instanceof Class<?> iface && iface.isInstance(proxy)) {
                        return true;
                    }
                }
                case "getConnection" -> {
                    if (owner != null && arity == 0) {
                        return owner;
                    }
                }
                default -> {
                    if (EXECUTIONS.contains(name) && target instanceof Statement) {
                        statements.increment();
                    }
                }
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            return wrapResult(proxy, method, result);
        }

        private Object wrapResult(Object proxy, Method method, Object result) {
            if (result == null) {
                return null;
            }
            Class<?> type = method.getReturnType();
            if (type == Connection.class) {
                return newProxy(Connection.class, result, null);
            }
            if (target instanceof Connection
                    && (type == Statement.class
                            || type == PreparedStatement.class
                            || type == CallableStatement.class)) {
                return newProxy(type, result, (Connection) proxy);
            }
            return result;
        }

        private Object newProxy(Class<?> type, Object target, Connection owner) {
            return Proxy.newProxyInstance(
                    CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, new Forwarder(target, owner));
        }
    }
}
