package io.rediacc.gpu.grants.repository;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The outbox rows Kafka refused for good, parked by the relay (OutboxRelay), for an operator to drop or retry. */
@ApplicationScoped
public class ParkedOutbox {

    private static final String LIST = """
            select id, aggregatetype, aggregateid, coalesce(octet_length(payload), 0) as bytes, created_at, parked_at, reason
            from outbox_parked order by id limit $1""";
    private static final String PAYLOAD = "select coalesce(payload, 'null') from outbox_parked where id = $1";
    private static final String DROP = "delete from outbox_parked where id = $1";
    /** Back into the outbox under its own id: it is published first among its machine's rows again. */
    private static final String RETRY = """
            with moved as (delete from outbox_parked where id = $1 returning *)
            insert into outbox (id, aggregatetype, aggregateid, type, payload, headers, created_at)
            select id, aggregatetype, aggregateid, type, payload, headers, created_at from moved""";

    private final Pool pool;

    public ParkedOutbox(Pool pool) {
        this.pool = pool;
    }

    /** One parked row, without its payload (which may be over a megabyte). */
    public record Parked(long id, String topic, String machine, int bytes, Instant createdAt, Instant parkedAt,
                         String reason) {
    }

    public Uni<List<Parked>> list(int limit) {
        return pool.preparedQuery(LIST).execute(Tuple.of(limit)).map(rows -> {
            List<Parked> parked = new ArrayList<>();
            for (Row r : rows) {
                parked.add(new Parked(r.getLong("id"), r.getString("aggregatetype"), r.getString("aggregateid"),
                        r.getInteger("bytes"), r.getOffsetDateTime("created_at").toInstant(),
                        r.getOffsetDateTime("parked_at").toInstant(), r.getString("reason")));
            }
            return parked;
        });
    }

    /** The parked record's JSON value; null when no row has that id. */
    public Uni<String> payload(long id) {
        return pool.preparedQuery(PAYLOAD).execute(Tuple.of(id))
                .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getString(0));
    }

    /** Deletes the row for good; whether there was one. */
    public Uni<Boolean> drop(long id) {
        return pool.preparedQuery(DROP).execute(Tuple.of(id)).map(rows -> rows.rowCount() == 1);
    }

    /** Moves the row back into the outbox; whether there was one. */
    public Uni<Boolean> retry(long id) {
        return pool.withTransaction(c -> c.preparedQuery(RETRY).execute(Tuple.of(id)))
                .map(rows -> rows.rowCount() == 1);
    }
}
