package io.bellwether.examples.jobs;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A service of which several instances run; its scheduled job ({@link RecordRunJob}) runs on the one that leads.
 * The election comes from {@code bellwether-spring-boot-starter}, in lease mode on the application's
 * {@code DataSource}: no {@code bellwether.*} property is needed beyond a readable node name.
 */
@SpringBootApplication
@EnableScheduling
public class JobsApplication {
    /**
     * Starts one instance.
     *
     * @param args Spring Boot's command line, e.g. {@code --bellwether.node=n1}
     */
    public static void main(String[] args) {
        SpringApplication.run(JobsApplication.class, args);
    }
}
