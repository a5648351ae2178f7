package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The lock that covers every grant of one machine: a PostgreSQL transaction-level advisory lock
 * keyed by a 64-bit hash of the machine name. It is taken through the Hibernate Reactive session,
 * so it sits on the transaction's own connection and is released by its commit or rollback; it
 * serialises changes of one machine across any number of replicas.
 */
@ApplicationScoped
public class MachineLock {

    private final GrantsConfig config;

    public MachineLock(GrantsConfig config) {
        this.config = config;
    }

    /** Takes the machine's lock in the current transaction, waiting at most {@code grants.lock-timeout}. */
    public Uni<Void> lock(String machine) {
        String timeout = Math.max(1, config.lockTimeout().toMillis()) + "ms";
        return Panache.getSession().chain(session -> session
                // SET LOCAL through set_config: bounded wait, and it ends with the transaction
                .createNativeQuery("select set_config('lock_timeout', :timeout, true)", String.class)
                .setParameter("timeout", timeout)
                .getSingleResult()
                .chain(() -> session
                        .createNativeQuery("select 1 from (select pg_advisory_xact_lock(hashtextextended(:key, 0))) l",
                                Integer.class)
                        .setParameter("key", key(machine))
                        .getSingleResult())
                .replaceWithVoid());
    }

    static String key(String machine) {
        return "grants:" + machine;
    }
}
