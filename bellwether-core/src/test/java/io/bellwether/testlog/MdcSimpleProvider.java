package io.bellwether.testlog;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.simple.SimpleServiceProvider;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * slf4j-simple's logging with a working MDC (slf4j-simple's own MDC keeps nothing), so that tests can read with
 * {@link org.slf4j.MDC#get} what the library put there. The MDC is per thread and, as Logback's, not inherited by
 * threads a thread starts: a thread that shows the library's values got them from the library. Chosen by the {@code
 * slf4j.provider} system property that this module's surefire configuration sets.
 */
public final class MdcSimpleProvider implements SLF4JServiceProvider {
    private final SimpleServiceProvider simple = new SimpleServiceProvider();
    private MDCAdapter mdc;

    @Override
    public ILoggerFactory getLoggerFactory() {
        return simple.getLoggerFactory();
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return simple.getMarkerFactory();
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return simple.getRequestedApiVersion();
    }

    @Override
    public void initialize() {
        simple.initialize();
        mdc = new ThreadMdc();
    }

    /** One map per thread, not inherited. */
    private static final class ThreadMdc implements MDCAdapter {
        private final ThreadLocal<Map<String, String>> values = ThreadLocal.withInitial(HashMap::new);
        private final ThreadLocal<Map<String, Deque<String>>> deques = ThreadLocal.withInitial(HashMap::new);

        @Override
        public void put(String key, String val) {
            values.get().put(key, val);
        }

        @Override
        public String get(String key) {
            return values.get().get(key);
        }

        @Override
        public void remove(String key) {
            values.get().remove(key);
        }

        @Override
        public void clear() {
            values.get().clear();
        }

        @Override
        public Map<String, String> getCopyOfContextMap() {
            return new HashMap<>(values.get());
        }

        @Override
        public void setContextMap(Map<String, String> contextMap) {
            values.set(new HashMap<>(contextMap));
        }

        @Override
        public void pushByKey(String key, String value) {
            deques.get().computeIfAbsent(key, k -> new ArrayDeque<>()).push(value);
        }

        @Override
        public String popByKey(String key) {
            Deque<String> d = deques.get().get(key);
            return d == null ? null : d.poll();
        }

        @Override
        public Deque<String> getCopyOfDequeByKey(String key) {
            Deque<String> d = deques.get().get(key);
            return d == null ? null : new ArrayDeque<>(d);
        }

        @Override
        public void clearDequeByKey(String key) {
            Deque<String> d = deques.get().get(key);
            if (d != null) {
                d.clear();
            }
        }
    }
}
