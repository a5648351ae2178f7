package io.rediacc.gpu.contracts.events;

import io.rediacc.gpu.contracts.identity.Identifiers;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * What a consumer accepts from a topic, checked like REST input (issue 16): a record is the word of
 * whoever holds a producer identity, so its key must be its own payload's machine, its lists and
 * numbers stay within bounds, and no time may lie in the future beyond a clock skew ("newer" wins,
 * so a future {@code generatedAt} or {@code syncedAt} would pin a machine's state). Each check
 * answers why a record is refused ({@link RecordRefusal}: a typed reason and a sentence), or null;
 * the consumer drops, logs and counts it by the reason.
 */
public final class RecordBounds {

    /** Longest heartbeat a gate may announce: a gate counts as live for a few heartbeats. */
    public static final int MAX_HEARTBEAT_SECONDS = 3600;
    /** Most entries of one list in a record (CDI devices, repos, GPUs, grants): far over a real host. */
    public static final int MAX_LIST = 5000;
    /** Most device nodes one CDI device lists. */
    public static final int MAX_DEVICE_NODES = 64;
    /** A PCI address in sysfs form is 12 characters; room for a longer domain, nothing more. */
    public static final int MAX_CARD_ADDRESS = 32;
    /** Longest device node path, platform or free-text field kept from a record. */
    public static final int MAX_TEXT = 4096;

    /**
     * Longest heartbeat liveness is computed with: a gate announcing more (up to {@link #MAX_HEARTBEAT_SECONDS})
     * still counts as gone after a few of these, so one record cannot keep a gate "live" for hours.
     */
    public static final int LIVENESS_HEARTBEAT_CAP_SECONDS = 300;

    private static final String UNDER_KEY = " was published under key \"";

    private RecordBounds() {
    }

    /** The heartbeat liveness is computed with: the announced one, at most {@link #LIVENESS_HEARTBEAT_CAP_SECONDS}. */
    public static int livenessHeartbeatSeconds(int announced) {
        return Math.min(announced, LIVENESS_HEARTBEAT_CAP_SECONDS);
    }

    /** Why the inventory is refused, or null: key, machine, times and sizes (names are checked entry by entry). */
    public static RecordRefusal inventory(String key, MachineInventory inventory, Instant recordTime, Instant now, Duration skew) {
        if (!Identifiers.isMachine(inventory.machine())) {
            return RecordRefusal.invalid("inventory names an invalid machine \"" + abbreviate(inventory.machine()) + "\"");
        }
        if (!inventory.machine().equals(key)) {
            return new RecordRefusal(DropReason.KEY_MISMATCH, "inventory of machine " + inventory.machine() + UNDER_KEY
                    + abbreviate(key) + "\"; the key must be the machine name");
        }
        if (inventory.generatedAt() == null) {
            return RecordRefusal.invalid("inventory of machine " + inventory.machine() + " has no generatedAt");
        }
        RecordRefusal late = future("inventory of " + inventory.machine(), "generatedAt", inventory.generatedAt(), now, skew);
        if (late == null) {
            late = future("inventory of " + inventory.machine(), "record timestamp", recordTime, now, skew);
        }
        if (late != null) {
            return late;
        }
        RecordRefusal big = tooLong("inventory of " + inventory.machine(), "cdiDevices", inventory.cdiDevices());
        big = big != null ? big : tooLong("inventory of " + inventory.machine(), "repos", inventory.repos());
        big = big != null ? big : tooLong("inventory of " + inventory.machine(), "gpus", inventory.gpus());
        if (big != null) {
            return big;
        }
        for (MachineInventory.CdiDeviceInfo d : inventory.cdiDevices()) {
            if (d != null && d.deviceNodes() != null && (d.deviceNodes().size() > MAX_DEVICE_NODES
                    || d.deviceNodes().stream().anyMatch(n -> n == null || n.length() > MAX_TEXT))) {
                return RecordRefusal.invalid("inventory of " + inventory.machine() + " lists a CDI device with more than " + MAX_DEVICE_NODES
                        + " device nodes or a node path over " + MAX_TEXT + " characters");
            }
            if (d != null && d.cards() != null && (d.cards().size() > MAX_DEVICE_NODES
                    || d.cards().stream().anyMatch(c -> c == null || c.length() > MAX_CARD_ADDRESS))) {
                return RecordRefusal.invalid("inventory of " + inventory.machine() + " lists a CDI device with more than " + MAX_DEVICE_NODES
                        + " cards or a card address over " + MAX_CARD_ADDRESS + " characters");
            }
        }
        if (inventory.platform() != null && inventory.platform().length() > 64) {
            return RecordRefusal.invalid("inventory of " + inventory.machine() + " names a platform over 64 characters");
        }
        return null;
    }

    /** Why the gate status is refused, or null. */
    public static RecordRefusal gateStatus(String key, GateStatus status, Instant recordTime, Instant now, Duration skew) {
        if (!Identifiers.isMachine(status.machine())) {
            return RecordRefusal.invalid("gate status names an invalid machine \"" + abbreviate(status.machine()) + "\"");
        }
        if (!Identifiers.isGateId(status.gateId())) {
            return RecordRefusal.invalid("gate status of machine " + status.machine() + " has an invalid gateId \"" + abbreviate(status.gateId())
                    + "\" (a gate id follows the machine name rules, in either case)");
        }
        String expected = Topics.gateStatusKey(status.machine(), status.gateId());
        if (!expected.equals(key)) {
            return new RecordRefusal(DropReason.KEY_MISMATCH, "gate status of " + expected + UNDER_KEY + abbreviate(key)
                    + "\"; the key must be machine/gateId");
        }
        if (status.heartbeatSeconds() < 0 || status.heartbeatSeconds() > MAX_HEARTBEAT_SECONDS) {
            return RecordRefusal.invalid("gate status of " + expected + " announces a heartbeat of " + status.heartbeatSeconds()
                    + " s; 0 (default) to " + MAX_HEARTBEAT_SECONDS + " s are accepted");
        }
        if (status.appliedVersion() < 0) {
            return RecordRefusal.invalid("gate status of " + expected + " has a negative appliedVersion");
        }
        RecordRefusal late = status.syncedAt() == null ? null
                : future("gate status of " + expected, "syncedAt", status.syncedAt(), now, skew);
        if (late == null) {
            late = future("gate status of " + expected, "record timestamp", recordTime, now, skew);
        }
        if (late != null) {
            return late;
        }
        RecordRefusal big = tooLong("gate status of " + expected, "grants", status.grants());
        return big != null ? big : tooLong("gate status of " + expected, "repos", status.repos());
    }

    /** Why a tombstone's key is refused, or null: machine/gateId, both by the name rules. */
    public static RecordRefusal gateStatusTombstone(String key) {
        int slash = key == null ? -1 : key.indexOf('/');
        if (slash <= 0 || !Identifiers.isMachine(key.substring(0, slash)) || !Identifiers.isGateId(key.substring(slash + 1))) {
            return RecordRefusal.invalid("gate status tombstone under key \"" + abbreviate(key) + "\", not machine/gateId");
        }
        return null;
    }

    private static RecordRefusal future(String what, String field, Instant at, Instant now, Duration skew) {
        if (at != null && at.isAfter(now.plus(skew))) {
            return new RecordRefusal(DropReason.FUTURE, what + " has " + field + " " + at + ", more than " + skew.toSeconds()
                    + " s ahead of this service's clock (" + now + "); check the sender's clock (NTP)");
        }
        return null;
    }

    private static RecordRefusal tooLong(String what, String field, List<?> list) {
        if (list != null && list.size() > MAX_LIST) {
            return RecordRefusal.invalid(what + " lists " + list.size() + " " + field + "; at most " + MAX_LIST + " are accepted");
        }
        return null;
    }

    private static String abbreviate(String s) {
        if (s == null) {
            return "null";
        }
        return s.length() <= 80 ? s : s.substring(0, 80) + "…(" + s.length() + " characters)";
    }
}
