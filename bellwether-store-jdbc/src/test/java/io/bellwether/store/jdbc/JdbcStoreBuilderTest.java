package io.bellwether.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** What a store is built from: a URL whose driver is present, or the application's DataSource; never both. */
class JdbcStoreBuilderTest {
    /** Sees the JDK and nothing of the class path: no JDBC driver at all. */
    private static final ClassLoader NO_DRIVERS = ClassLoader.getPlatformClassLoader();

    @Test
    void aUrlWhoseDriverIsMissingIsRefusedNamingTheDriverAndItsMavenDependency() {
        assertThatThrownBy(() -> JdbcDrivers.require("jdbc:postgresql://db:5432/app?password=secret", NO_DRIVERS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store url 'jdbc:postgresql://db:5432/app?password=***'")
                .hasMessageContaining("PostgreSQL JDBC driver (org.postgresql.Driver)")
                .hasMessageContaining("not on the class path")
                .hasMessageContaining("add the Maven dependency org.postgresql:postgresql")
                .hasMessageNotContaining("secret");
        assertThatThrownBy(() -> JdbcDrivers.require("jdbc:mariadb://db/app", NO_DRIVERS))
                .hasMessageContaining("org.mariadb.jdbc.Driver")
                .hasMessageContaining("org.mariadb.jdbc:mariadb-java-client");
        assertThatThrownBy(() -> JdbcDrivers.require("jdbc:h2:mem:x", NO_DRIVERS))
                .hasMessageContaining("org.h2.Driver")
                .hasMessageContaining("com.h2database:h2");
        assertThatThrownBy(() -> JdbcDrivers.require("jdbc:mysql://db/app", NO_DRIVERS))
                .hasMessageContaining("com.mysql.cj.jdbc.Driver")
                .hasMessageContaining("com.mysql:mysql-connector-j")
                .hasMessageContaining("or org.mariadb.jdbc:mariadb-java-client");
    }

    @Test
    void buildingAStoreOnAUrlWhoseDriverIsMissingFailsAndOpensNothing() {
        JdbcLeaseStore.Builder builder = JdbcLeaseStore.builder().url("jdbc:postgresql://db:5432/app");
        builder.drivers = NO_DRIVERS;

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("org.postgresql.Driver")
                .hasMessageContaining("org.postgresql:postgresql");
    }

    @Test
    void aUrlWhoseDriverIsPresentIsAccepted() {
        ClassLoader here = JdbcStoreBuilderTest.class.getClassLoader();
        for (String url : new String[] {
            "jdbc:postgresql://db/app", "jdbc:mariadb://db/app", "jdbc:mysql://db/app", "jdbc:h2:mem:x"
        }) {
            JdbcDrivers.require(url, here);
        }
        JdbcLeaseStore.builder().url("jdbc:h2:mem:builder").build().close();
    }

    @Test
    void aUrlAndADataSourceTogetherAreRefused() {
        assertThatThrownBy(() -> JdbcLeaseStore.builder()
                        .url("jdbc:h2:mem:x")
                        .dataSource(new JdbcDataSource())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store url and dataSource are both set: allowed one of them");
    }

    @Test
    void credentialsWithADataSourceAreRefused() {
        assertThatThrownBy(() -> JdbcLeaseStore.builder()
                        .dataSource(new JdbcDataSource())
                        .user("app")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user and password apply to a store url");
    }

    @Test
    void neitherUrlNorDataSourceIsRefused() {
        assertThatThrownBy(() -> JdbcLeaseStore.builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store url or dataSource is required");
    }

    @Test
    void aDataSourceStoreIsBuiltWithoutConnecting() {
        JdbcDataSource unreachable = new JdbcDataSource();
        unreachable.setURL("jdbc:h2:tcp://127.0.0.1:1/nowhere");
        try (JdbcLeaseStore store =
                JdbcLeaseStore.builder().dataSource(unreachable).build()) {
            assertThat(store.describe()).isEqualTo("DataSource JdbcDataSource table bellwether_lease");
            assertThat(store.canPush()).isFalse();
        }
    }
}
