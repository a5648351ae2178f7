package io.rediacc.gpu.inventory.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a batch of inventory records does to the read model, worked out in memory from the rows
 * held before it. The records of each machine are folded in offset order with exactly the rules
 * of applying them one at a time — an inventory applies only when its generatedAt is later than
 * the one held, one that repeats the held content only refreshes it, a tombstone removes only
 * when it is later — so each record gets the outcome it would have had alone, and each machine
 * then needs at most one write: the newest state wins.
 */
final class InventoryBatchPlan {

    /** What the database holds of a machine when the batch starts ({@code lists}: null where never recorded). */
    record Held(Instant generatedAt, String contentDigest, ListDigests lists) {
    }

    /** What the batch leaves to write for one machine. */
    enum Write {
        /** Nothing: every record was a replay or older. */
        NONE,
        /** Same lists, newer generatedAt: the machine row and the raw record only. */
        REFRESH,
        /** New content: the machine row, the raw record and all its lists. */
        REPLACE,
        /** A tombstone won: the machine and its lists go. */
        REMOVE
    }

    /** The outcome for one machine: held before the batch (so updated, not inserted) and what to write. */
    static final class MachinePlan {
        final String machine;
        final boolean heldBefore;
        /** The digests of the lists the database holds (null: not held, or written before they were recorded). */
        final ListDigests heldLists;
        Write write = Write.NONE;
        /** The record whose content is written (REFRESH, REPLACE). */
        InventoryChange winner;
        String digest;
        private Instant generatedAt;
        private boolean present;

        private MachinePlan(String machine, Held held) {
            this.machine = machine;
            this.heldBefore = held != null;
            this.heldLists = held == null ? null : held.lists();
            this.present = held != null;
            this.generatedAt = held == null ? null : held.generatedAt();
            this.digest = held == null ? null : held.contentDigest();
        }

        /** A REPLACE writes the GPU rows when the winner's differ from those held (all of them for a new machine). */
        boolean rewritesGpus() {
            return write == Write.REPLACE && winner.lists().gpusDiffer(heldLists);
        }

        boolean rewritesDevices() {
            return write == Write.REPLACE && winner.lists().devicesDiffer(heldLists);
        }

        boolean rewritesRepos() {
            return write == Write.REPLACE && winner.lists().reposDiffer(heldLists);
        }
    }

    private final Map<String, MachinePlan> machines = new LinkedHashMap<>();
    private final List<IngestOutcome> outcomes = new ArrayList<>();

    private InventoryBatchPlan() {
    }

    /** {@code held}: the rows of the batch's machines as locked at the start of its transaction. */
    static InventoryBatchPlan of(List<InventoryChange> changes, Map<String, Held> held) {
        InventoryBatchPlan plan = new InventoryBatchPlan();
        for (InventoryChange change : changes) {
            MachinePlan machine = plan.machines.computeIfAbsent(change.machine(),
                    name -> new MachinePlan(name, held.get(name)));
            plan.outcomes.add(change.isTombstone() ? remove(machine, change) : apply(machine, change));
        }
        return plan;
    }

    private static IngestOutcome apply(MachinePlan m, InventoryChange change) {
        Instant generatedAt = Timestamps.stored(change.inventory().generatedAt());
        if (m.present && !generatedAt.isAfter(m.generatedAt)) {
            return IngestOutcome.NOT_NEWER;
        }
        String digest = change.digest();
        IngestOutcome outcome;
        if (m.present && digest.equals(m.digest)) {
            // a heartbeat: same lists, only newer; a REPLACE earlier in the batch stays one
            if (m.write != Write.REPLACE) {
                m.write = Write.REFRESH;
            }
            outcome = IngestOutcome.REFRESHED;
        } else {
            m.write = Write.REPLACE;
            outcome = IngestOutcome.APPLIED;
        }
        m.present = true;
        m.generatedAt = generatedAt;
        m.digest = digest;
        m.winner = change;
        return outcome;
    }

    private static IngestOutcome remove(MachinePlan m, InventoryChange change) {
        Instant at = Timestamps.stored(change.recordTime());
        if (!m.present || !at.isAfter(m.generatedAt)) {
            return IngestOutcome.NOT_NEWER;
        }
        m.present = false;
        m.generatedAt = null;
        m.digest = null;
        m.winner = null;
        m.write = Write.REMOVE;
        return IngestOutcome.REMOVED;
    }

    /** One outcome per change, in the order of the changes. */
    List<IngestOutcome> outcomes() {
        return outcomes;
    }

    List<MachinePlan> writing(Write write) {
        return machines.values().stream().filter(m -> m.write == write).toList();
    }
}
