package io.rediacc.gpu.api.schema;

import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumSet;
import java.util.Set;

/**
 * Replicas starting together against one database migrate it one after the other.
 *
 * <p>Flyway's own PostgreSQL advisory lock covers applying migrations, not the decision before it: two
 * replicas on a fresh database both see no history table, the first creates it, and the second then finds
 * a schema that is not empty — "Unable to baseline schema history table … as it already exists, and is
 * empty" with baseline-on-migrate, "Found non-empty schema(s) … without schema history table" without it —
 * and fails to start. This callback takes a session advisory lock on a connection of its own before
 * anything is read ({@link Event#BEFORE_VALIDATE}, the first event of a migrate with validate-on-migrate,
 * Flyway's default) and releases it when the migrate ends, either way. A replica that dies while holding
 * it releases it with its session.
 */
public final class MigrationTurns implements Callback {

    /** The advisory lock key: "rediacc-migrate" folded into a bigint, distinct from Flyway's own keys. */
    static final long LOCK_KEY = 0x7265646961636300L | 'm';

    /** The first event of a migrate that ends it, whichever comes first. */
    private static final Set<Event> RELEASE = EnumSet.of(Event.AFTER_MIGRATE, Event.AFTER_MIGRATE_OPERATION_FINISH,
            Event.AFTER_MIGRATE_ERROR, Event.AFTER_VALIDATE_ERROR, Event.AFTER_VALIDATE_OPERATION_FINISH, Event.AFTER_BASELINE_ERROR);

    /**
     * The lock's own connection, taken from Flyway's data source: the lock is a session's, and Flyway may hand
     * callbacks another pooled connection at the end than at the start (an unlock there is a no-op, and the lock
     * stayed on an idle pooled connection, holding the next replica for minutes).
     */
    private Connection holder;

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_VALIDATE || RELEASE.contains(event);
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public synchronized void handle(Event event, Context context) {
        try {
            if (event == Event.BEFORE_VALIDATE) {
                if (holder == null) {
                    Connection connection = context.getConfiguration().getDataSource().getConnection();
                    try (Statement statement = connection.createStatement()) {
                        connection.setAutoCommit(true);
                        statement.execute("select pg_advisory_lock(" + LOCK_KEY + ")");
                    } catch (SQLException e) {
                        connection.close();
                        throw e;
                    }
                    holder = connection;
                }
            } else if (holder != null) {
                try (Connection connection = holder; Statement statement = connection.createStatement()) {
                    holder = null;
                    statement.execute("select pg_advisory_unlock(" + LOCK_KEY + ")");
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not " + (event == Event.BEFORE_VALIDATE ? "take" : "release")
                    + " the migration lock: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCallbackName() {
        return "rediacc-migration-turns";
    }
}
