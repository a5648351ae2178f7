package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.output.Ages;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;
import io.rediacc.gpu.cli.output.Table;
import io.rediacc.gpu.contracts.api.GateView;
import io.rediacc.gpu.contracts.api.MachineDetail;
import io.rediacc.gpu.contracts.api.MachineGrantsView;
import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code rdc machine gpu list <machine>}. */
public class MachineGpuListCommand implements Callable<Integer> {

    private final PositionalParamSpec machine = Commands.parameter("0", "<machine>", "Machine name, as its node-agent reports it");
    private CommandSpec spec;

    private MachineGpuListCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        MachineGpuListCommand command = new MachineGpuListCommand();
        command.spec = Commands.command(command, "list",
                        new String[]{"Each GPU of a machine (vendor, index, name, driver version, memory, platform, and the age of "
                                + "the inventory setup wrote) and every "
                                + "CDI device name that can be granted, with the card it reaches, the repos that hold it now and who "
                                + "reserves its card exclusively (under any name of that card).",
                                "Holders come from the machine's live gates; where grant-service's database disagrees, a holder "
                                        + "is marked (db only) or (gate only). A name the services report granted but no longer "
                                        + "defined by the machine's inventory (a setup removed it) is marked (orphaned).",
                                "-o json prints the inventory exactly as the machine recorded it."},
                        "  rdc machine gpu list gpu-host-1",
                        "  rdc machine gpu list wsl-gpu -o json",
                        "  rdc machine gpu list gpu-host-1 -o yaml")
                .addPositional(command.machine);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        String name = MachineNames.valid(machine.getValue());
        if (session.format() != OutputFormat.table) {
            Reply raw = session.inventory().rawInventory(name).orFail();
            if (session.format() == OutputFormat.json) {
                // the document as the machine wrote it, byte for byte
                session.out().print(raw.body());
                if (!raw.body().endsWith("\n")) {
                    session.out().println();
                }
                session.out().flush();
            } else {
                Documents.print(session.out(), OutputFormat.yaml, raw.json());
            }
            return ExitCodes.OK;
        }
        show(session, name);
        return ExitCodes.OK;
    }

    /** The machine's GPU table, devices with holders, and gates (also the end of {@code rdc machine setup}). */
    public static void show(Session session, String name) {
        MachineDetail detail = session.inventory().machine(name).orFail().as(MachineDetail.class);
        MachineGrantsView db = databaseGrants(session, name);
        List<Grant> dbGrants = db == null ? null : db.grants();
        JsonNode stored = storedInventory(session, name);
        CardReservations cards = CardReservations.of(detail.cdiDevices(), stored, detail.gpus(), dbGrants);
        // orphaned is what the services report (grant-service for its grants, inventory-service for the gates'),
        // never rdc's own guess from two answers taken at different moments
        HolderMerge.ReportedOrphans orphans = HolderMerge.ReportedOrphans.of(db == null ? List.of() : db.orphaned(),
                detail.orphaned());
        print(session, detail, HolderMerge.merge(detail.cdiDevices(), dbGrants, orphans), setupAgeSeconds(stored, detail), cards);
    }

    /** The machine's inventory as setup wrote it, or null when it cannot be read. */
    private static JsonNode storedInventory(Session session, String machine) {
        try {
            Reply raw = session.inventory().rawInventory(machine);
            return raw.ok() ? raw.json() : null;
        } catch (RuntimeException e) {
            return null; // the heartbeat's age and no card column: better than no table
        }
    }

    /** The database's view; null (with a warning) when grant-service cannot say. */
    private static MachineGrantsView databaseGrants(Session session, String machine) {
        try {
            Reply reply = session.grants().machineGrants(machine);
            if (reply.status() == 404) {
                // grant-service has never heard of the machine: it holds no grants
                return new MachineGrantsView(machine, 0, List.of(), List.of(), List.of());
            }
            if (!reply.ok()) {
                session.warn("cannot compare with grant-service's database: " + reply.error().line());
                return null;
            }
            return reply.as(MachineGrantsView.class);
        } catch (Failure e) {
            session.warn("cannot compare with grant-service's database: " + e.getMessage());
            return null;
        }
    }

    /**
     * The age of the inventory setup wrote: the {@code generatedAt} of the machine's stored
     * inventory ({@code /etc/rediacc/gpu/inventory.json} as inventory-service serves it), not of the
     * agent's last publication (a heartbeat, shown by {@code rdc machine list}). Falls back to the
     * publication's age when the stored inventory cannot be read.
     */
    private static long setupAgeSeconds(JsonNode stored, MachineDetail detail) {
        try {
            JsonNode generatedAt = stored != null ? stored.path("generatedAt") : null;
            if (generatedAt != null && generatedAt.isTextual()) {
                return Math.max(0, Duration.between(Instant.parse(generatedAt.textValue()), Instant.now()).getSeconds());
            }
        } catch (RuntimeException e) {
            // the heartbeat's age below: better an age than none
        }
        return detail.ageSeconds();
    }

    /** Vendor, then index: two vendors' cards both numbered 0 stay apart. */
    static final Comparator<Gpu> VENDOR_THEN_INDEX = Comparator
            .comparing((Gpu g) -> g.vendor() == null ? "" : g.vendor()).thenComparingInt(Gpu::index);

    private static void print(Session session, MachineDetail detail, List<HolderMerge.DeviceHolders> devices, long setupAge,
                              CardReservations cards) {
        PrintWriter out = session.out();
        String age = Ages.of(setupAge);
        if (detail.gpus().isEmpty()) {
            out.println("No GPUs on " + detail.machine() + " (platform " + detail.platform() + ", inventory age " + age + ").");
        } else {
            Table gpus = session.table("VENDOR", "GPU", "NAME", "DRIVER", "MEMORY", "PLATFORM", "AGE");
            for (Gpu gpu : detail.gpus().stream().sorted(VENDOR_THEN_INDEX).toList()) {
                gpus.row(gpu.vendor(), gpu.index(), gpu.name(), gpu.driverVersion(),
                        gpu.memoryMiB() == null ? null : gpu.memoryMiB() + " MiB", detail.platform(), age);
            }
            gpus.print(out);
        }
        out.println();
        if (devices.isEmpty()) {
            out.println("No grantable CDI devices on " + detail.machine() + ".");
        } else {
            // the card columns only where the inventory placed names on cards (an older agent does not)
            Table table = cards.known() ? session.table("DEVICE", "CARD", "HOLDERS", "CARD RESERVED BY")
                    : session.table("DEVICE", "HOLDERS");
            for (HolderMerge.DeviceHolders row : devices) {
                String holders = row.holders().isEmpty() ? "-" : String.join(", ", row.holders());
                String device = row.orphaned() ? row.device() + " (orphaned)" : row.device();
                if (cards.known()) {
                    table.row(device, cards.card(row.device()), holders, cards.reservedBy(row.device()));
                } else {
                    table.row(device, holders);
                }
            }
            table.print(out);
        }
        if (!detail.gates().isEmpty()) {
            out.println();
            Table gates = session.table("GATE", "STATE", "APPLIED VERSION", "LIVE", "DAEMONS");
            for (GateView gate : detail.gates()) {
                gates.row(gate.gateId(), gate.state(), gate.appliedVersion(), gate.live() ? "yes" : "no",
                        DaemonStatus.summary(gate.daemons()));
            }
            gates.print(out);
        }
        out.flush();
        if (detail.stale()) {
            session.warn("the last inventory publication of " + detail.machine() + " is " + Ages.of(detail.ageSeconds())
                    + " old (stale: more than 3 heartbeats); is its node-agent running?");
        }
        for (GateView gate : detail.gates()) {
            for (DaemonStatus daemon : gate.daemons()) {
                if (gate.live() && !DaemonStatus.OK.equals(daemon.state())) {
                    session.warn("the Docker daemon of repo " + daemon.repoName() + " on " + detail.machine() + " is "
                            + daemon.line() + "; gate " + gate.gateId() + " refuses its device requests until it is verified");
                }
            }
        }
        for (HolderMerge.DeviceHolders row : devices) {
            if (row.orphaned()) {
                // a setup (--force, or one run outside rdc) removed a granted name: the gate refuses it now
                session.warn(row.device() + " is orphaned: granted, but " + detail.machine() + "'s CDI specs no longer define it, so "
                        + "its gate refuses it; rerun rdc machine setup " + detail.machine() + " once the device is back, or "
                        + "free it with rdc repo gpu revoke <repo>@" + detail.machine() + " --device " + row.device());
            }
        }
        if (detail.gates().stream().noneMatch(GateView::live)) {
            session.warn("no live gate on " + detail.machine()
                    + ": nothing is enforced there now; holders marked (db only) are granted but not enforced");
        }
    }
}
