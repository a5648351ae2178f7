package io.rediacc.gpu.inventory.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.inventory.model.RawInventory;
import jakarta.enterprise.context.ApplicationScoped;

/** The inventory documents exactly as the machines published them. */
@ApplicationScoped
public class RawInventoryRepository implements PanacheRepositoryBase<RawInventory, String> {
}
