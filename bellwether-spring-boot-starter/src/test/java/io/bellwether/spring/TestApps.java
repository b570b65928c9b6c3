package io.bellwether.spring;

import io.bellwether.Election;
import io.bellwether.Leadership;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/** The application the tests start, several times per test: one scheduled leader-only job that records its runs. */
final class TestApps {
    private TestApps() {}

    /** One run of the job: which member ran it, under which epoch. */
    record Run(String node, long epoch) {}

    /** Where every application of a test records its job's runs. */
    static final class Recorder {
        final List<Run> runs = new CopyOnWriteArrayList<>();

        List<Run> since(int index) {
            return new ArrayList<>(runs.subList(index, runs.size()));
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Job job(Election election, Recorder recorder) {
            return new Job(election, recorder);
        }
    }

    /** The leader-only job. Public methods: the proxy must be able to call them. */
    static class Job {
        private final Election election;
        private final Recorder recorder;

        Job(Election election, Recorder recorder) {
            this.election = election;
            this.recorder = recorder;
        }

        @LeaderOnly
        @Scheduled(fixedDelay = 20)
        public void tick() {
            // Recorded whether or not a leadership is at hand: a run where there should be none must show.
            long epoch = CurrentLeadership.get().map(Leadership::epoch).orElse(-1L);
            recorder.runs.add(new Run(election.self().value(), epoch));
        }
    }

    /** Starts the test application with {@code properties} (no web server unless they ask for one). */
    static ConfigurableApplicationContext start(Recorder recorder, Map<String, Object> properties) {
        return start(recorder, properties, new Class<?>[0]);
    }

    /** As {@link #start(Recorder, Map)}, with more configuration classes. */
    static ConfigurableApplicationContext start(Recorder recorder, Map<String, Object> properties, Class<?>... more) {
        Map<String, Object> all = new java.util.LinkedHashMap<>();
        all.put("spring.main.web-application-type", "none");
        all.put("spring.main.banner-mode", "off");
        all.put("logging.level.root", "WARN");
        all.put("logging.level.io.bellwether", "INFO");
        all.putAll(properties);
        SpringApplication application = new SpringApplicationBuilder(App.class)
                .sources(more)
                .properties(all)
                .initializers(context -> context.getBeanFactory().registerSingleton("recorder", recorder))
                .build();
        return application.run();
    }
}
