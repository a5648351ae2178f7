package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.MachineInventory;

import java.time.Instant;

/**
 * One decoded record of {@code gpu.inventory.v1}: an inventory, or a tombstone ({@code inventory}
 * null) removing {@code machine}. Partition and offset only name the record in logs.
 *
 * @param rawJson    the record's value exactly as published (null for a tombstone)
 * @param recordTime the record's timestamp: what orders a tombstone against the inventory held
 * @param digest     {@link ContentDigest} of the inventory (null for a tombstone), worked out where the record is
 *                   decoded — on the poll's worker threads — not inside the batch's transaction
 * @param lists      the digests of its lists (null for a tombstone), worked out there too
 */
public record InventoryChange(String machine, MachineInventory inventory, String rawJson, Instant recordTime,
                              int partition, long offset, String digest, ListDigests lists) {

    public static InventoryChange of(MachineInventory inventory, String rawJson, Instant recordTime, int partition,
                                     long offset) {
        return new InventoryChange(inventory.machine(), inventory, rawJson, recordTime, partition, offset,
                ContentDigest.of(inventory), ListDigests.of(inventory));
    }

    public static InventoryChange tombstone(String machine, Instant recordTime, int partition, long offset) {
        return new InventoryChange(machine, null, null, recordTime, partition, offset, null, null);
    }

    public boolean isTombstone() {
        return inventory == null;
    }
}
