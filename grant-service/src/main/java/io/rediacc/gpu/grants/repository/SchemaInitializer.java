package io.rediacc.gpu.grants.repository;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates the tables from {@code db/schema.sql} at start, before the consumers and the relay run.
 * The statements run in one transaction under an advisory lock, so replicas that start at once on
 * one database take turns instead of racing on the catalog; every statement is idempotent.
 */
@ApplicationScoped
public class SchemaInitializer {

    private static final Logger LOG = Logger.getLogger(SchemaInitializer.class);
    /** Advisory lock key of schema creation ("grants-schema"); other keys of this service hash text. */
    static final long SCHEMA_LOCK = 0x6772616e74736368L;

    private final Pool pool;
    private final Uni<Void> ready;

    public SchemaInitializer(Pool pool) {
        this.pool = pool;
        this.ready = Uni.createFrom().deferred(this::create).memoize().indefinitely();
    }

    void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) {
        ready.await().atMost(Duration.ofSeconds(60));
    }

    /** Completes once the schema exists; what reads or writes tables outside a request waits for it. */
    public Uni<Void> ready() {
        return ready;
    }

    private Uni<Void> create() {
        List<String> statements = statements();
        return pool.withTransaction(connection -> connection
                        .query("select pg_advisory_xact_lock(" + SCHEMA_LOCK + ")").execute()
                        // the replica that waited finds every table there: no "already exists" notices
                        .chain(() -> connection.query("set local client_min_messages = warning").execute())
                        .chain(() -> runAll(connection, statements)))
                .invoke(() -> LOG.debugf("schema ready (%d statements)", statements.size()));
    }

    private static Uni<Void> runAll(SqlConnection connection, List<String> statements) {
        Uni<Void> chain = Uni.createFrom().voidItem();
        for (String statement : statements) {
            chain = chain.chain(() -> connection.query(statement).execute().replaceWithVoid());
        }
        return chain;
    }

    static List<String> statements() {
        String sql;
        try (InputStream in = SchemaInitializer.class.getResourceAsStream("/db/schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("db/schema.sql is missing from the application");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        StringBuilder withoutComments = new StringBuilder();
        for (String line : sql.split("\n")) {
            int comment = line.indexOf("--");
            withoutComments.append(comment >= 0 ? line.substring(0, comment) : line).append('\n');
        }
        List<String> statements = new ArrayList<>();
        for (String statement : withoutComments.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement.strip());
            }
        }
        return statements;
    }
}
