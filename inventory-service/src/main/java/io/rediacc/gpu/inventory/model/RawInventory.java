package io.rediacc.gpu.inventory.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * The inventory record exactly as the machine published it. Kept apart from {@link Machine} so
 * that fleet listings never load the (large) documents.
 */
@Entity
@Table(name = "machine_inventory_raw")
public class RawInventory {

    @Id
    @Column(name = "machine")
    public String machine;

    @Column(name = "json")
    public String json;
}
