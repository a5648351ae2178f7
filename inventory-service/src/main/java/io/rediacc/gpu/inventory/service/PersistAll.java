package io.rediacc.gpu.inventory.service;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.smallrye.mutiny.Uni;

import java.util.List;

/** Persists a list of rows; an empty list is a no-op (Panache's persist(Iterable) fails on one). */
final class PersistAll {

    private PersistAll() {
    }

    static <E> Uni<Void> of(PanacheRepositoryBase<E, ?> repository, List<E> rows) {
        return rows.isEmpty() ? Uni.createFrom().voidItem() : repository.persist(rows);
    }
}
