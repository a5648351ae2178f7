package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;

import java.time.Instant;
import java.util.List;

/** What rdc reads from inventory-service's answers (fields it does not show are ignored). */
public final class InventoryViews {

    private InventoryViews() {
    }

    // GET /api/v1/machines ({items: [{machine, platform, gpuCount, generatedAt, ageSeconds, stale,
    // agentVersion}], page, size, total}) is read as a tree by MachineListCommand: no record here,
    // since building a record deserializer is most of what Jackson costs a short-lived command.

    /**
     * {@code GET /api/v1/machines/{machine}}.
     *
     * @param orphaned the names the machine's live gates hold grants for that its inventory no longer defines, as
     *                 inventory-service reports them; empty from a service that does not report them
     */
    public record MachineDetail(String machine, String platform, Instant generatedAt, long ageSeconds, boolean stale,
                                String agentVersion, List<MachineInventory.Gpu> gpus, List<CdiDevice> cdiDevices,
                                List<RepoInfo> repos, List<Gate> gates, List<OrphanedDevice> orphaned) {
        public MachineDetail {
            gpus = gpus == null ? List.of() : gpus;
            cdiDevices = cdiDevices == null ? List.of() : cdiDevices;
            repos = repos == null ? List.of() : repos;
            gates = gates == null ? List.of() : gates;
            orphaned = orphaned == null ? List.of() : orphaned;
        }

        public boolean anyLiveGate() {
            return gates.stream().anyMatch(Gate::live);
        }
    }

    /** @param cards the PCI addresses of the cards the name reaches, when the service reports them */
    public record CdiDevice(String name, List<String> deviceNodes, String specFile, List<Holder> holders,
                            List<String> cards) {
        public CdiDevice {
            holders = holders == null ? List.of() : holders;
            cards = cards == null ? List.of() : cards;
        }
    }

    /** A granted name the machine's inventory no longer defines, with the repos its live gates hold it for. */
    public record OrphanedDevice(String name, List<Holder> holders) {
        public OrphanedDevice {
            holders = holders == null ? List.of() : holders;
        }
    }

    /** A repo a live gate reports holding the device. */
    public record Holder(String repo, String repoGuid, boolean exclusive, String source) {
    }

    /** @param daemons each repo daemon as the gate last verified it (empty from gates that report none) */
    public record Gate(String gateId, long appliedVersion, String state, boolean live, Instant syncedAt,
                       List<DaemonStatus> daemons) {
        public Gate {
            daemons = daemons == null ? List.of() : List.copyOf(daemons);
        }
    }
}
