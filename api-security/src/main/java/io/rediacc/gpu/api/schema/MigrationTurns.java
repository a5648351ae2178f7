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
 * and fails to start. This callback takes a session advisory lock on Flyway's connection before
 * anything is read ({@link Event#BEFORE_VALIDATE}, the first event of a migrate with validate-on-migrate,
 * Flyway's default) and releases it when the migrate ends, either way. A replica that dies while holding
 * it releases it with its session.
 */
public final class MigrationTurns implements Callback {

    /** The advisory lock key: "rediacc-migrate" folded into a bigint, distinct from Flyway's own keys. */
    static final long LOCK_KEY = 0x7265646961636300L | 'm';

    /**
     * The events that end a migrate, whichever comes first; all fire while Flyway's connections are still open
     * ({@code AFTER_MIGRATE_OPERATION_FINISH} fires after they were handed back, too late to unlock).
     */
    private static final Set<Event> RELEASE = EnumSet.of(Event.AFTER_MIGRATE, Event.AFTER_MIGRATE_ERROR,
            Event.AFTER_VALIDATE_ERROR, Event.AFTER_BASELINE_ERROR);

    /** The connection holding the lock: a lock is its session's, so it is released on that one. */
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
                    Connection connection = context.getConnection();
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("select pg_advisory_lock(" + LOCK_KEY + ")");
                    }
                    holder = connection;
                }
            } else if (holder != null) {
                Connection connection = holder;
                holder = null;
                try (Statement statement = connection.createStatement()) {
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
