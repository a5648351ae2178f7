package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What each of an inventory's lists says — its GPUs, its CDI devices, its repos — kept on the machine's row
 * ({@code gpus_digest}, {@code devices_digest}, {@code repos_digest}), so that a new inventory rewrites only the
 * lists it changed. A driver upgrade changes every GPU row and no device or repo; rewriting all three lists
 * was two thirds of the rows the ingest deleted and inserted (issue 34). A digest held as null (a row written
 * before they existed) matches nothing: that list is rewritten.
 */
record ListDigests(String gpus, String devices, String repos) {

    static ListDigests of(MachineInventory inventory) {
        return new ListDigests(digest(inventory.gpus()), digest(inventory.cdiDevices()), digest(inventory.repos()));
    }

    boolean gpusDiffer(ListDigests held) {
        return held == null || !Objects.equals(gpus, held.gpus);
    }

    boolean devicesDiffer(ListDigests held) {
        return held == null || !Objects.equals(devices, held.devices);
    }

    boolean reposDiffer(ListDigests held) {
        return held == null || !Objects.equals(repos, held.repos);
    }

    private static String digest(Object list) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(EventJson.toBytes(list)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
