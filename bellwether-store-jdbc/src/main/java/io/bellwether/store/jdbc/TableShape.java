package io.bellwether.store.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Checks that an existing lease table has the shape the statements rely on ({@link Dialect#COLUMNS}): a table
 * someone else made, or an older one, must fail with a clear message rather than with odd SQL errors later.
 */
final class TableShape {
    private static final Set<Integer> TEXT_TYPES =
            Set.of(Types.VARCHAR, Types.CHAR, Types.NVARCHAR, Types.NCHAR, Types.LONGVARCHAR, Types.LONGNVARCHAR);

    private TableShape() {}

    /**
     * What is wrong with the columns of {@code table}, or null if they are right.
     *
     * @throws SQLException if the table cannot be queried (missing, for instance)
     */
    static String columnProblem(Connection c, String table) throws SQLException {
        Map<String, Integer> columns = new HashMap<>();
        try (PreparedStatement ps =
                        c.prepareStatement("SELECT grp, holder, token, expires_at FROM " + table + " WHERE 1 = 0");
                ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                columns.put(md.getColumnLabel(i).toLowerCase(Locale.ROOT), md.getColumnType(i));
            }
        }
        for (String text : new String[] {"grp", "holder"}) {
            if (!TEXT_TYPES.contains(columns.get(text))) {
                return "column " + text + " is not a character column";
            }
        }
        for (String number : new String[] {"token", "expires_at"}) {
            if (columns.get(number) == null || columns.get(number) != Types.BIGINT) {
                return "column " + number + " is not BIGINT";
            }
        }
        return null;
    }

    /**
     * The indexes in {@link Dialect#PRIORITY_COLUMNS} of the priority columns {@code table} lacks (a table made
     * before them); each is probed with a query that names it and reads no row.
     */
    static List<Integer> missingPriorityColumns(Connection c, String table) {
        List<Integer> missing = new ArrayList<>();
        for (int i = 0; i < Dialect.PRIORITY_COLUMN_NAMES.size(); i++) {
            try (PreparedStatement ps = c.prepareStatement(
                            "SELECT " + Dialect.PRIORITY_COLUMN_NAMES.get(i) + " FROM " + table + " WHERE 1 = 0");
                    ResultSet rs = ps.executeQuery()) {
                rs.getMetaData();
            } catch (SQLException e) {
                missing.add(i);
            }
        }
        return missing;
    }

    /**
     * Whether {@code grp} alone is the primary key of {@code table} (unquoted, so stored in whatever case the
     * database folds names to: each case is tried).
     *
     * @param mariaDb whether the database is MySQL or MariaDB, which calls a database a catalog
     */
    static boolean grpIsKey(Connection c, String table, boolean mariaDb) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        String name = table;
        String schema = null;
        int dot = name.indexOf('.');
        if (dot >= 0) {
            schema = name.substring(0, dot);
            name = name.substring(dot + 1);
        }
        // MySQL calls a database a catalog; PostgreSQL and H2 use schemas.
        String catalog = mariaDb ? (schema != null ? schema : c.getCatalog()) : null;
        if (mariaDb) {
            schema = null;
        } else if (schema == null) {
            schema = c.getSchema();
        }
        Set<String> tableNames =
                new LinkedHashSet<>(List.of(name, name.toLowerCase(Locale.ROOT), name.toUpperCase(Locale.ROOT)));
        Set<String> schemaNames = new LinkedHashSet<>();
        schemaNames.add(schema);
        if (schema != null) {
            schemaNames.add(schema.toLowerCase(Locale.ROOT));
            schemaNames.add(schema.toUpperCase(Locale.ROOT));
        }
        for (String s : schemaNames) {
            for (String t : tableNames) {
                Set<String> key = new HashSet<>();
                try (ResultSet rs = md.getPrimaryKeys(catalog, s, t)) {
                    while (rs.next()) {
                        key.add(rs.getString("COLUMN_NAME").toLowerCase(Locale.ROOT));
                    }
                }
                if (!key.isEmpty()) {
                    return key.equals(Set.of("grp"));
                }
            }
        }
        return false;
    }
}
