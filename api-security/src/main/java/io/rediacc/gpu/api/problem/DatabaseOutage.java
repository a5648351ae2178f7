package io.rediacc.gpu.api.problem;

import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Set;

/**
 * Whether a failure means the database could not do the work right now (a 503 to retry) rather than a
 * bug (a 500): decided by exception type and SQLSTATE, never by message text, for both services. A
 * service's {@link FailureClassifier} asks here; {@link ProblemMappers} walks the cause chain, so a
 * wrapped failure is judged by its causes one at a time.
 */
public final class DatabaseOutage {

    /**
     * SQLSTATE classes of a server that cannot take the work: 08 connection exception, 53 insufficient
     * resources (too many connections, disk full, out of memory), 57 operator intervention (shutdown,
     * crash recovery, a cancelled statement).
     */
    static final Set<String> OUTAGE_CLASSES = Set.of("08", "53", "57");

    private DatabaseOutage() {
    }

    /** The failure's SQLSTATE: the reactive client's {@link PgException}, or JDBC's and Hibernate Reactive's {@link SQLException}. */
    public static Optional<String> sqlState(Throwable e) {
        String state = e instanceof PgException pg ? pg.getSqlState() : e instanceof SQLException sql ? sql.getSQLState() : null;
        return Optional.ofNullable(state);
    }

    /** True when {@code e} itself (not its causes) says the database cannot be reached or cannot take the work. */
    public static boolean is(Throwable e) {
        Optional<String> state = sqlState(e);
        if (state.isPresent()) {
            return state.get().length() >= 2 && OUTAGE_CLASSES.contains(state.get().substring(0, 2));
        }
        // refused or timed-out connects (netty's connect timeout is a ConnectException), a reset by a
        // restarting server, a connection the client saw close
        if (e instanceof ConnectException || e instanceof SocketException || e instanceof ClosedConnectionException
                || e instanceof ClosedChannelException) {
            return true;
        }
        // the JDK reports a write to a socket its peer has closed (EPIPE) as a bare IOException; every
        // parser on a request's path throws a subclass (Jackson's JsonProcessingException, a charset's
        // CharacterCodingException), so only the exact class stands for a broken connection
        if (e.getClass() == IOException.class) {
            return true;
        }
        // Vert.x fails the pool's own waits (no connection within the pool's wait, a pool closed at
        // shutdown) with a bare NoStackTraceThrowable and no other type; on a service's request path
        // nothing else fails that way: the client's server errors are PgException, its socket errors
        // IOExceptions
        return e instanceof NoStackTraceThrowable;
    }

    /** The one answer both services give for an outage: 503 with the reason, nothing changed. */
    public static ApiProblem problem(String what, Throwable e) {
        // the server's words, never a Java type name: an answer is for the operator, not a stack trace
        String message = e.getMessage() == null || e.getMessage().isBlank() ? "no answer" : e.getMessage();
        String reason = sqlState(e).map(s -> "SQLSTATE " + s + ": " + message).orElse(message);
        return new ApiProblem(ProblemType.DATABASE_UNAVAILABLE, what + " cannot be reached or cannot take the work (" + reason + ")",
                "retry when the database is back; nothing was changed by this request; if it persists check PostgreSQL and /q/health/ready");
    }
}
