package io.bellwether.examples.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Driver;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * What the starter brings into an application: no web server and no JDBC driver. This example declares no web
 * server and two drivers (H2 and PostgreSQL), so its class path must have exactly those: a web server or another
 * driver could only have come with the starter (or Bellwether's other modules). A driver the application declared
 * itself cannot be told apart here; {@code mvn dependency:tree -pl bellwether-spring-boot-starter} shows those.
 */
class StarterDependenciesTest {
    @Test
    void theClassPathHasNoWebServer() {
        List<String> servers = List.of(
                "org.apache.catalina.startup.Tomcat",
                "org.eclipse.jetty.server.Server",
                "io.undertow.Undertow",
                "reactor.netty.http.server.HttpServer",
                "org.springframework.web.servlet.DispatcherServlet",
                "org.springframework.web.reactive.DispatcherHandler");
        assertThat(servers.stream().filter(StarterDependenciesTest::present).toList())
                .as("web server classes on the class path")
                .isEmpty();
    }

    @Test
    void theOnlyJdbcDriversAreTheTwoTheExampleDeclares() {
        List<String> drivers = ServiceLoader.load(Driver.class).stream()
                .map(provider -> provider.type().getName())
                .toList();
        assertThat(drivers).containsExactlyInAnyOrder("org.h2.Driver", "org.postgresql.Driver");
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, StarterDependenciesTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
