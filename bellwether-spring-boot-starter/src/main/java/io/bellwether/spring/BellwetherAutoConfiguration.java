package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.micrometer.BellwetherMetrics;
import io.bellwether.micrometer.TransportMetrics;
import io.bellwether.spi.LeaseStore;
import io.bellwether.spi.StateStore;
import io.bellwether.spi.Transport;
import io.bellwether.state.FileStateStore;
import io.bellwether.state.InMemoryStateStore;
import io.bellwether.store.jdbc.JdbcLeaseStore;
import io.bellwether.transport.tcp.TcpTransport;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.UncheckedIOException;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Sets up the application's election from the {@code bellwether.*} properties ({@link BellwetherProperties}).
 *
 * <p>Lease mode (no {@code bellwether.peers}, or {@code bellwether.algorithm=lease}): the lease lives in the
 * application's {@link DataSource} ({@link JdbcLeaseStore}, which borrows connections and never closes the pool),
 * or, without one or with {@code bellwether.lease.store=redis}, in Redis through the application's Lettuce {@code
 * RedisClient} (its own bean, or the one of Spring Data Redis' {@code LettuceConnectionFactory}). Peer algorithms
 * ({@code bellwether.peers} set): a {@link TcpTransport} between the peers and a {@link FileStateStore} in {@code
 * bellwether.state-dir}.
 *
 * <p>Every bean backs off when the application defines its own of the same type ({@link LeaseStore}, {@link
 * Transport}, {@link StateStore}, {@link Election}, ...). An {@link Election} of the application's must be left
 * unstarted: {@link BellwetherLifecycle} starts and closes it.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
        })
@ConditionalOnProperty(prefix = "bellwether", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(BellwetherProperties.class)
public class BellwetherAutoConfiguration {
    private static final String LEASE_STORE = "bellwetherLeaseStore";

    /** Creates the configuration; Spring Boot does. */
    public BellwetherAutoConfiguration() {}

    @Bean
    Settings bellwetherSettings(BellwetherProperties properties, Environment environment) {
        return Settings.resolve(properties, environment.getProperty("spring.application.name"));
    }

    /**
     * The lease store in lease mode: on the application's DataSource or Redis client.
     *
     * @throws BellwetherConfigurationException if the application has neither (or not the one asked for)
     */
    @Bean(name = LEASE_STORE, destroyMethod = "")
    @ConditionalOnMissingBean(LeaseStore.class)
    @Conditional(ElectionMode.Lease.class)
    LeaseStore bellwetherLeaseStore(Settings settings, ConfigurableListableBeanFactory beans) {
        // Closed by the lifecycle's stop (ElectionFactory.closeOwnedStore); should the context fail before that, by
        // the factory's destruction, which comes before that of the pool or client it borrows from.
        for (String type : List.of(
                DataSource.class.getName(),
                "io.lettuce.core.AbstractRedisClient",
                "org.springframework.data.redis.connection.RedisConnectionFactory")) {
            if (ClassUtils.isPresent(type, getClass().getClassLoader())) {
                for (String name : beans.getBeanNamesForType(ClassUtils.resolveClassName(type, null), true, false)) {
                    beans.registerDependentBean(name, LEASE_STORE);
                }
            }
        }
        BellwetherProperties.Lease lease = settings.lease();
        BellwetherProperties.StoreKind kind = lease.getStore();
        ClassLoader loader = getClass().getClassLoader();
        if (kind != BellwetherProperties.StoreKind.REDIS) {
            DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
            if (dataSource != null) {
                try {
                    return JdbcLeaseStore.builder()
                            .dataSource(dataSource)
                            .table(lease.getTable())
                            .createSchema(lease.isCreateSchema())
                            .requestTimeout(settings.storeRequestTimeout())
                            .build();
                } catch (IllegalArgumentException e) {
                    throw new BellwetherConfigurationException(
                            Settings.PREFIX + "lease.table",
                            Settings.PREFIX + "lease.table = '" + lease.getTable() + "' is invalid: " + e.getMessage(),
                            e);
                }
            }
            if (kind == BellwetherProperties.StoreKind.JDBC) {
                throw new BellwetherConfigurationException(
                        Settings.PREFIX + "lease.store",
                        Settings.PREFIX + "lease.store = jdbc but the application has no single DataSource bean:"
                                + " allowed jdbc with one DataSource, redis with a Lettuce RedisClient, or auto",
                        null);
            }
        }
        if (RedisStores.available(loader)) {
            var client = RedisStores.client(beans, loader);
            if (client.isPresent()) {
                return RedisStores.store(client.get(), lease.getKeyPrefix(), settings.storeRequestTimeout());
            }
        }
        throw new BellwetherConfigurationException(
                Settings.PREFIX + "lease.store",
                Settings.PREFIX + "lease.store = " + kind.name().toLowerCase(java.util.Locale.ROOT)
                        + " found no store: lease mode needs the application's DataSource (jdbc), or a Lettuce"
                        + " RedisClient with bellwether-store-redis on the class path (redis); or set "
                        + Settings.PREFIX + "peers to elect between peers instead",
                null);
    }

    /** The TCP transport between the peers, listening from now on; closed when the context is. */
    @Bean
    @ConditionalOnMissingBean(Transport.class)
    @Conditional(ElectionMode.Peers.class)
    TcpTransport bellwetherTransport(Settings settings, ObjectProvider<TcpTransport.Observer> observer) {
        TcpTransport.Builder builder = TcpTransport.builder()
                .cluster(settings.cluster())
                .self(settings.node())
                .listen(settings.listen())
                .members(settings.peers());
        // With Micrometer: the peer traffic meters (TransportMetrics, below).
        observer.ifUnique(builder::observer);
        if (settings.secret() == null) {
            builder.insecure();
        } else {
            builder.secret(settings.secret());
        }
        TcpTransport transport = builder.build();
        try {
            transport.start();
        } catch (UncheckedIOException e) {
            throw new IllegalStateException(
                    Settings.PREFIX + "listen = " + settings.listen() + ": cannot listen there: " + e.getMessage(), e);
        }
        return transport;
    }

    /** Where the elections persist their state: a directory for peer algorithms, memory in lease mode. */
    @Bean
    @ConditionalOnMissingBean(StateStore.class)
    StateStore bellwetherStateStore(Settings settings) {
        return settings.stateDir() == null ? new InMemoryStateStore() : new FileStateStore(settings.stateDir());
    }

    @Bean(destroyMethod = "close")
    ElectionFactory bellwetherElectionFactory(
            Settings settings,
            ObjectProvider<LeaseStore> store,
            StateStore stateStore,
            ObjectProvider<Transport> transport,
            ApplicationEventPublisher publisher,
            ConfigurableListableBeanFactory beans) {
        LeaseStore leaseStore = settings.leaseMode() ? store.getObject() : null;
        if (leaseStore != null && beans.containsBeanDefinition(LEASE_STORE)) {
            // The factory uses the store: destroyed first, it closes it while its pool or client is still open.
            beans.registerDependentBean(LEASE_STORE, "bellwetherElectionFactory");
        }
        return new ElectionFactory(
                settings,
                leaseStore,
                leaseStore != null && beans.containsBeanDefinition(LEASE_STORE),
                stateStore,
                settings.leaseMode() ? null : transport.getObject(),
                publisher);
    }

    /** The application's election, unstarted: {@link BellwetherLifecycle} starts and closes it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(Election.class)
    Election bellwetherElection(ElectionFactory factory) {
        return factory.create(factory.settings().group());
    }

    @Bean
    LeaderOnlyRegistry leaderOnlyRegistry(
            Election election, ElectionFactory factory, ObjectProvider<LeaderOnlyCounter> counter) {
        LeaderOnlyCounter none = new LeaderOnlyCounter() {
            @Override
            public void skipped(String group, String method) {}

            @Override
            public void revoked(String group, String method) {}
        };
        return new LeaderOnlyRegistry(election, factory::createPublishing, counter.getIfAvailable(() -> none));
    }

    @Bean
    BellwetherLifecycle bellwetherLifecycle(Election election, LeaderOnlyRegistry registry, ElectionFactory factory) {
        return new BellwetherLifecycle(election, registry, factory);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyBeanPostProcessor leaderOnlyBeanPostProcessor(ObjectProvider<LeaderOnlyRegistry> registry) {
        return new LeaderOnlyBeanPostProcessor(registry);
    }

    /** The health indicator and the info contributor, with Spring Boot Actuator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HealthIndicator.class, InfoContributor.class})
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean(name = "bellwetherHealthIndicator")
        BellwetherHealthIndicator bellwetherHealthIndicator(Election election, ElectionFactory factory) {
            return new BellwetherHealthIndicator(election, factory);
        }

        @Bean
        @ConditionalOnMissingBean(name = "bellwetherInfoContributor")
        BellwetherInfoContributor bellwetherInfoContributor(Election election, Settings settings) {
            return new BellwetherInfoContributor(election, settings.algorithm().name());
        }
    }

    /**
     * The election's meters ({@link BellwetherMetrics}, bellwether-micrometer) and those of {@link LeaderOnly}
     * methods, with Micrometer: meter binders, which Spring Boot Actuator binds to every registry it manages.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({MeterRegistry.class, BellwetherMetrics.class})
    static class Metrics {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        BellwetherMetrics bellwetherMetrics(Election election) {
            return new BellwetherMetrics(election);
        }

        @Bean
        LeaderOnlyMeters bellwetherLeaderOnlyMeters() {
            return new LeaderOnlyMeters();
        }

        /**
         * The TCP transport's meters (messages by type, refused frames by reason), in peer mode: the transport's
         * observer, and a meter binder. Every message type of the algorithm has its series from the start.
         */
        @Bean
        @ConditionalOnMissingBean(TcpTransport.Observer.class)
        @Conditional(ElectionMode.Peers.class)
        TransportMetrics bellwetherTransportMetrics(Settings settings) {
            TransportMetrics metrics = new TransportMetrics(io.micrometer.core.instrument.Tags.empty());
            metrics.messageTypes(settings.spec(settings.group(), null).codec().messageTypes());
            return metrics;
        }
    }
}
