package io.bellwether.spring;

import io.bellwether.store.redis.RedisLeaseStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Optional;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The lease store on the application's Lettuce client. Loaded only when Lettuce and bellwether-store-redis are on the
 * class path; Spring Data Redis is optional as well.
 */
final class RedisStores {
    private static final String SPRING_DATA_FACTORY =
            "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

    private RedisStores() {}

    static boolean available(ClassLoader loader) {
        return ClassUtils.isPresent("io.lettuce.core.RedisClient", loader)
                && ClassUtils.isPresent("io.bellwether.store.redis.RedisLeaseStore", loader);
    }

    /** The application's {@link RedisClient}: a bean of its own, or the native client of Spring Data's factory. */
    static Optional<RedisClient> client(ListableBeanFactory beans, ClassLoader loader) {
        Optional<RedisClient> own =
                beans.getBeanProvider(RedisClient.class).stream().findFirst();
        if (own.isPresent() || !ClassUtils.isPresent(SPRING_DATA_FACTORY, loader)) {
            return own;
        }
        return SpringData.client(beans);
    }

    static RedisLeaseStore store(RedisClient client, String keyPrefix, Duration requestTimeout) {
        try {
            return RedisLeaseStore.builder()
                    .client(client)
                    .keyPrefix(keyPrefix)
                    .requestTimeout(requestTimeout)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new BellwetherConfigurationException(
                    Settings.PREFIX + "lease.key-prefix",
                    Settings.PREFIX + "lease.key-prefix = '" + keyPrefix + "' is invalid: " + e.getMessage(),
                    e);
        }
    }

    /** Spring Data Redis, in a class of its own so that nothing else needs it on the class path. */
    private static final class SpringData {
        static Optional<RedisClient> client(ListableBeanFactory beans) {
            return beans
                    .getBeanProvider(org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory.class)
                    .stream()
                    .findFirst()
                    .map(factory -> {
                        AbstractRedisClient client = factory.getNativeClient();
                        if (client instanceof RedisClient single) {
                            return single;
                        }
                        throw new BellwetherConfigurationException(
                                Settings.PREFIX + "lease.store",
                                Settings.PREFIX + "lease.store: the application's Redis connection factory has "
                                        + (client == null
                                                ? "no client yet"
                                                : "a " + client.getClass().getSimpleName())
                                        + ": allowed a single-node RedisClient (define a RedisClient bean, or a"
                                        + " LeaseStore bean of your own)",
                                null);
                    });
        }
    }
}
