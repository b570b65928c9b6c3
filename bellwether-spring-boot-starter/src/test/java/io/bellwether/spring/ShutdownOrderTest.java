package io.bellwether.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bellwether.Election;
import io.bellwether.Leadership;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

/**
 * Closing the context: leader-only work is interrupted while the leadership is still valid, then the leadership is
 * revoked (its listeners told) while the DataSource is still open.
 */
class ShutdownOrderTest {
    private static final List<String> steps = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        Blocking blocking() {
            return new Blocking();
        }

        @Bean
        RevocationWatcher revocationWatcher(DataSource dataSource) {
            return new RevocationWatcher(dataSource);
        }
    }

    static class Blocking {
        private final CountDownLatch started = new CountDownLatch(1);

        public CountDownLatch started() {
            return started;
        }

        @LeaderOnly
        public void run() {
            Leadership leadership = CurrentLeadership.require();
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                steps.add("work interrupted; leadership revoked: "
                        + leadership.revoked().toCompletableFuture().isDone());
            }
        }
    }

    static class RevocationWatcher {
        private final DataSource dataSource;

        RevocationWatcher(DataSource dataSource) {
            this.dataSource = dataSource;
        }

        @EventListener
        void on(LeadershipRevokedEvent event) {
            try (Connection c = dataSource.getConnection();
                    Statement s = c.createStatement()) {
                s.execute("SELECT 1");
                steps.add("revoked (" + event.getReason() + "); database open");
            } catch (SQLException e) {
                steps.add("revoked (" + event.getReason() + "); database closed: " + e);
            }
        }
    }

    @Test
    void closingStopsLeaderOnlyWorkFirstThenResignsWhileTheDataSourceIsOpen() throws Exception {
        ConfigurableApplicationContext context =
                TestApps.start(new TestApps.Recorder(), Map.of("bellwether.group", "shutdown-order"), Beans.class);
        Blocking blocking = context.getBean(Blocking.class);
        await().atMost(Duration.ofSeconds(10)).until(context.getBean(Election.class)::isLeader);
        Thread caller = new Thread(blocking::run);
        caller.start();
        assertThat(blocking.started().await(10, TimeUnit.SECONDS)).isTrue();

        context.close();
        caller.join(10_000);

        assertThat(steps)
                .containsExactly("work interrupted; leadership revoked: false", "revoked (RESIGNED); database open");
    }
}
