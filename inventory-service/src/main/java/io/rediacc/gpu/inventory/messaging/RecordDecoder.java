package io.rediacc.gpu.inventory.messaging;

import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordBounds;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.json.StrictJson;
import org.jboss.logging.Logger;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * Turns record values into events the read model can hold, and refuses what it cannot: a record
 * that fails here would fail the same way on every replay, so it is skipped, not retried.
 * Single bad entries (an invalid device name) are dropped with a warning; the raw inventory keeps them.
 */
final class RecordDecoder {

    private static final Logger LOG = Logger.getLogger(RecordDecoder.class);
    private static final int MAX_GATE_ID = 128;

    private RecordDecoder() {
    }

    static MachineInventory inventory(String key, byte[] value, Instant recordTime, Duration skew) {
        MachineInventory inventory = read(value, MachineInventory.class);
        RecordRefusal refused = RecordBounds.inventory(key, inventory, recordTime, Instant.now(), skew);
        if (refused != null) {
            throw new RejectedRecordException(refused);
        }
        if (!Identifiers.isMachine(inventory.machine())) {
            throw new RejectedRecordException("inventory names an invalid machine \"" + inventory.machine() + "\"");
        }
        if (!inventory.machine().equals(key)) {
            throw new RejectedRecordException(DropReason.KEY_MISMATCH, "inventory of machine \"" + inventory.machine()
                    + "\" was published under key \"" + key + "\"; the key must be the machine name");
        }
        if (inventory.generatedAt() == null) {
            throw new RejectedRecordException(DropReason.KEY_MISMATCH, "inventory of machine \"" + inventory.machine() + "\" has no generatedAt");
        }
        List<MachineInventory.CdiDeviceInfo> devices = inventory.cdiDevices().stream()
                .filter(d -> validDevice(inventory.machine(), d.name()))
                .toList();
        List<RepoInfo> repos = inventory.repos().stream()
                .filter(r -> validRepo(inventory.machine(), r))
                .toList();
        List<MachineInventory.Gpu> gpus = inventory.gpus().stream().filter(Objects::nonNull).toList();
        return new MachineInventory(inventory.schemaVersion(), inventory.machine(), inventory.platform(),
                inventory.agentVersion(), inventory.generatedAt(), gpus, devices, inventory.toolkit(),
                inventory.persistencedSocket(), repos, inventory.specProblems(), inventory.setupFile());
    }

    static GateStatus gateStatus(String key, byte[] value, Instant recordTime, Duration skew) {
        GateStatus status = read(value, GateStatus.class);
        RecordRefusal refused = RecordBounds.gateStatus(key, status, recordTime, Instant.now(), skew);
        if (refused != null) {
            throw new RejectedRecordException(refused);
        }
        if (!Identifiers.isMachine(status.machine())) {
            throw new RejectedRecordException("gate status names an invalid machine \"" + status.machine() + "\"");
        }
        if (status.gateId() == null || status.gateId().isBlank() || status.gateId().length() > MAX_GATE_ID) {
            throw new RejectedRecordException("gate status of machine \"" + status.machine() + "\" has no usable gateId");
        }
        String expected = Topics.gateStatusKey(status.machine(), status.gateId());
        if (!expected.equals(key)) {
            throw new RejectedRecordException(DropReason.KEY_MISMATCH, "gate status of " + expected + " was published under key \"" + key
                    + "\"; the key must be machine/gateId");
        }
        List<Grant> grants = status.grants().stream()
                .filter(g -> g != null && validDevice(status.machine(), g.device()))
                .toList();
        return new GateStatus(status.machine(), status.gateId(), status.appliedVersion(), status.state(), grants,
                status.repos(), status.heartbeatSeconds(), status.syncedAt(), 0, null, true, status.daemons(), status.epoch(),
                status.seq(), status.grantsSignedAt(), status.grantsFrozen());
    }

    /**
     * A record's value as {@code type}, read strictly ({@link StrictJson}: no trailing content, no key
     * twice, no BOM, no coerced scalar); unreadable or JSON null is a {@link RejectedRecordException}.
     */
    static <T> T read(byte[] value, Class<T> type) {
        try {
            T event = StrictJson.readEvent(value, type);
            if (event == null) {
                throw new RejectedRecordException("record value is JSON null");
            }
            return event;
        } catch (UncheckedIOException | IllegalArgumentException e) {
            throw new RejectedRecordException(e.getMessage());
        }
    }

    private static boolean validDevice(String machine, String name) {
        if (CdiName.isValid(name)) {
            return true;
        }
        LOG.warnf("machine %s: dropping device with invalid CDI name \"%s\"", machine, name);
        return false;
    }

    private static boolean validRepo(String machine, RepoInfo repo) {
        if (repo != null && Identifiers.isRepoName(repo.name())) {
            return true;
        }
        LOG.warnf("machine %s: dropping repo with invalid name %s", machine, repo == null ? null : repo.name());
        return false;
    }
}
