package io.bellwether.store.jdbc;

import java.util.List;
import java.util.Locale;

/**
 * The JDBC drivers the store's URLs need. The drivers are the application's choice (optional dependencies of this
 * module), so a URL whose driver is missing is refused when the store is built, naming the driver and the Maven
 * dependency that brings it, rather than failing later with the driver manager's "no suitable driver".
 */
final class JdbcDrivers {
    /** One driver: its driver class and the Maven coordinates of the artifact holding it. */
    record Driver(String name, String className, String coordinates) {}

    static final Driver POSTGRESQL = new Driver("PostgreSQL", "org.postgresql.Driver", "org.postgresql:postgresql");
    static final Driver MARIADB =
            new Driver("MariaDB", "org.mariadb.jdbc.Driver", "org.mariadb.jdbc:mariadb-java-client");
    static final Driver MYSQL = new Driver("MySQL", "com.mysql.cj.jdbc.Driver", "com.mysql:mysql-connector-j");
    static final Driver H2 = new Driver("H2", "org.h2.Driver", "com.h2database:h2");

    private JdbcDrivers() {}

    /** The drivers that can serve {@code url}, the preferred one first; empty for an unsupported database. */
    static List<Driver> candidates(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:postgresql:")) {
            return List.of(POSTGRESQL);
        }
        if (lower.startsWith("jdbc:mariadb:")) {
            return List.of(MARIADB);
        }
        if (lower.startsWith("jdbc:mysql:")) {
            // MariaDB's driver serves jdbc:mysql: URLs too (with permitMysqlScheme, which the store adds).
            return List.of(MYSQL, MARIADB);
        }
        if (lower.startsWith("jdbc:h2:")) {
            return List.of(H2);
        }
        return List.of();
    }

    /** Whether {@code driver}'s class can be loaded through {@code loader}. */
    static boolean present(Driver driver, ClassLoader loader) {
        try {
            Class.forName(driver.className(), false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * Checks that a driver for {@code url} can be loaded through {@code loader}.
     *
     * @throws IllegalArgumentException naming the URL (without its password), the missing driver class and the Maven
     *     dependency to add
     */
    static void require(String url, ClassLoader loader) {
        List<Driver> candidates = candidates(url);
        if (candidates.isEmpty() || candidates.stream().anyMatch(d -> present(d, loader))) {
            return;
        }
        Driver preferred = candidates.get(0);
        StringBuilder message = new StringBuilder("store url '")
                .append(JdbcUrls.redact(url))
                .append("' needs the ")
                .append(preferred.name())
                .append(" JDBC driver (")
                .append(preferred.className())
                .append("), which is not on the class path: add the Maven dependency ")
                .append(preferred.coordinates());
        for (Driver other : candidates.subList(1, candidates.size())) {
            message.append(" (or ")
                    .append(other.coordinates())
                    .append(", whose ")
                    .append(other.className())
                    .append(" serves it too)");
        }
        message.append(", or give the store the application's DataSource");
        throw new IllegalArgumentException(message.toString());
    }
}
