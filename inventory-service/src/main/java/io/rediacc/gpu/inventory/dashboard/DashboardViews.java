package io.rediacc.gpu.inventory.dashboard;

import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.api.GateView;
import io.rediacc.gpu.contracts.api.MachineDetail;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/** What the dashboard's templates show: records read by the Qute templates under templates/dashboard. */
public final class DashboardViews {

    private DashboardViews() {
    }

    /** How many GPUs of one vendor and model a machine has. */
    public record ModelCount(String vendor, String model, long count) {
    }

    /** A one-word state with whether it is good ({@code ok}) for the page's colour and icon. */
    public record State(String label, boolean ok) {
    }

    /** A machine in the fleet view. */
    public record FleetRow(String machine, String platform, Instant generatedAt, long ageSeconds, boolean stale,
                           List<ModelCount> models, List<GateView> gates, Long latestVersion, long freeDevices,
                           long heldDevices) {

        public State gateSync() {
            return DashboardViews.gateSync(gates, latestVersion);
        }

        public State daemons() {
            return DashboardViews.daemons(gates);
        }
    }

    /** One page of the fleet view, with the filters it was read with. */
    public record FleetPage(List<FleetRow> rows, int page, boolean hasNext, String vendor, String model, String show) {

        public boolean hasPrevious() {
            return page > 0;
        }

        public int previousPage() {
            return page - 1;
        }

        /** The next page's number, which is also this page's number counted from 1. */
        public int nextPage() {
            return page + 1;
        }
    }

    /** The machine view: the read model's detail and the grant version its gates should apply. */
    public record MachineView(MachineDetail detail, Long latestVersion, List<RefusalGroup> refusals) {

        /** By vendor, then index, as {@code rdc machine gpu list} shows them. */
        public List<MachineInventory.Gpu> gpus() {
            return detail.gpus().stream().sorted(Comparator.comparing((MachineInventory.Gpu g) -> String.valueOf(g.vendor()))
                    .thenComparingInt(MachineInventory.Gpu::index)).toList();
        }

        public State gateSync() {
            return DashboardViews.gateSync(detail.gates(), latestVersion);
        }

        /** The name of this machine's repo with this GUID (a fork's parent), or null when it is gone. */
        public String repoName(String guid) {
            return detail.repos().stream().filter(r -> r.guid() != null && r.guid().equals(guid))
                    .map(io.rediacc.gpu.contracts.events.RepoInfo::name).findFirst().orElse(null);
        }

        public State gateState(GateView gate) {
            return DashboardViews.gateSync(List.of(gate), latestVersion);
        }
    }

    /** A grant a live gate enforces for a repo on a machine. */
    public record RepoGrant(String machine, String device, boolean exclusive, String gates) {
    }

    /** A machine the repo is on, from the machine's inventory. */
    /** @param forkOfName the parent's name on the same machine, when the parent is still there */
    public record RepoPlacement(String machine, String guid, String forkOf, String forkOfName) {
    }

    /** One grant event of a repo's history. */
    public record HistoryEntry(Instant at, String type, String machine, String device, boolean exclusive, String actor,
                               String reason, Long version) {
    }

    /** The repo view: where it is, what it holds now, what happened to its grants, what was refused. */
    /**
     * One repo: {@code name@machine} (a repo is its name on one machine; a same-named repo on another machine
     * is another repo, with its own grants and history). For a bare name ({@code machine} null) only the
     * machines with a repo of that name, each linking to its own page.
     */
    public record RepoView(String repo, String machine, List<RepoPlacement> placements, List<RepoGrant> grants,
                           List<HistoryEntry> history, List<RefusalGroup> refusals) {

        /** {@code name@machine}, or the bare name. */
        public String ref() {
            return machine == null ? repo : repo + "@" + machine;
        }
    }

    /**
     * Refusals of one repo on one machine by one rule: how many, and the latest one's message and fix
     * (as the gate sent it; null from gates before they sent one).
     */
    public record RefusalGroup(String repo, String machine, String rule, long count, Instant lastAt, String device,
                               String message, String fix) {
    }

    static State gateSync(List<GateView> gates, Long latestVersion) {
        if (gates.isEmpty()) {
            return new State("no gate", false);
        }
        for (GateView g : gates) {
            if (!g.live()) {
                return new State("silent", false);
            }
            if (!"synced".equals(g.state())) {
                return new State(g.state() == null ? "unknown" : g.state(), false);
            }
            if (latestVersion != null && g.appliedVersion() < latestVersion) {
                return new State("behind", false);
            }
        }
        return new State("synced", true);
    }

    static State daemons(List<GateView> gates) {
        List<DaemonStatus> all = gates.stream().flatMap(g -> g.daemons().stream()).toList();
        String summary = DaemonStatus.summary(all);
        return new State("ok".equals(summary) ? "verified" : summary, "ok".equals(summary));
    }
}
