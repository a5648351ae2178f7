package io.rediacc.gpu.grants.testing;

import io.rediacc.gpu.contracts.events.Grant;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.HashSet;
import java.util.Set;

/** Reads the service's tables directly, to compare them with what was published. */
public final class Database {

    private final Connection connection;

    public Database(Connection connection) {
        this.connection = connection;
    }

    public Set<Grant> grants(String machine) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(
                "select repo_guid, repo_name, device, exclusive, granted_by, granted_at from grants where machine = ?")) {
            s.setString(1, machine);
            Set<Grant> grants = new HashSet<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    grants.add(new Grant(rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4),
                            rs.getString(5), rs.getObject(6, OffsetDateTime.class).toInstant()));
                }
            }
            return grants;
        }
    }

    public long version(String machine) throws SQLException {
        return count("select coalesce(max(version), 0) from machine_versions where machine = ?", machine);
    }

    public long pendingOutboxRows(String machine) throws SQLException {
        return count("select count(*) from outbox where aggregateid = ?", machine);
    }

    private long count(String sql, String machine) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(sql)) {
            s.setString(1, machine);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
