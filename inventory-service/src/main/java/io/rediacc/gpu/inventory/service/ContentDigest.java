package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What an inventory says apart from when it was generated. A machine re-publishes an unchanged
 * inventory on every heartbeat; with thousands of machines, rewriting their lists each time would
 * be most of the database's work.
 */
final class ContentDigest {

    private ContentDigest() {
    }

    static String of(MachineInventory inventory) {
        MachineInventory content = new MachineInventory(inventory.schemaVersion(), inventory.machine(), inventory.platform(),
                inventory.agentVersion(), null, inventory.gpus(), inventory.cdiDevices(), inventory.toolkit(),
                inventory.persistencedSocket(), inventory.repos(), inventory.specProblems());
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(EventJson.toBytes(content)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
