package io.rediacc.gpu.inventory.support;

import io.rediacc.gpu.testsupport.PostgresTestResource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** What the read model's tables hold for some machines, every column, read over JDBC. */
public final class TableRows {

    private TableRows() {
    }

    public static List<String> of(List<String> machines) {
        List<String> rows = new ArrayList<>();
        try (Connection c = PostgresTestResource.current().connect()) {
            for (String machine : machines) {
                for (String table : List.of("machine where name", "machine_inventory_raw where machine",
                        "gpu where machine", "cdi_device where machine", "machine_repo where machine")) {
                    try (PreparedStatement s = c.prepareStatement("select * from " + table + " = ? order by 1")) {
                        s.setString(1, machine);
                        try (ResultSet rs = s.executeQuery()) {
                            ResultSetMetaData meta = rs.getMetaData();
                            while (rs.next()) {
                                StringBuilder row = new StringBuilder(table).append(':');
                                for (int i = 1; i <= meta.getColumnCount(); i++) {
                                    row.append(meta.getColumnName(i)).append('=').append(rs.getString(i)).append(' ');
                                }
                                rows.add(row.toString());
                            }
                        }
                    }
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return rows;
    }

    public static List<String> gpuIds(String machine) {
        return ids("gpu", machine);
    }

    /** The row ids of a machine's list in {@code table} (gpu, cdi_device, machine_repo); never empty. */
    public static List<String> ids(String table, String machine) {
        List<String> ids = new ArrayList<>();
        try (Connection c = PostgresTestResource.current().connect();
             PreparedStatement s = c.prepareStatement("select id from " + table + " where machine = ? order by id")) {
            s.setString(1, machine);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        if (ids.isEmpty()) {
            throw new AssertionError("machine " + machine + " has no rows in " + table);
        }
        return ids;
    }
}
