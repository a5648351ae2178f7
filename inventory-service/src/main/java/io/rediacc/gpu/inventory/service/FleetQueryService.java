package io.rediacc.gpu.inventory.service;

import io.quarkus.hibernate.reactive.panache.common.WithSession;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.inventory.api.CdiDeviceView;
import io.rediacc.gpu.inventory.api.FleetGpu;
import io.rediacc.gpu.inventory.api.GateView;
import io.rediacc.gpu.inventory.api.Holder;
import io.rediacc.gpu.inventory.api.MachineDetail;
import io.rediacc.gpu.inventory.api.MachineSummary;
import io.rediacc.gpu.inventory.api.Page;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.model.CdiDeviceRow;
import io.rediacc.gpu.inventory.model.Gate;
import io.rediacc.gpu.inventory.model.GateGrantRow;
import io.rediacc.gpu.inventory.model.GpuRow;
import io.rediacc.gpu.inventory.model.Machine;
import io.rediacc.gpu.inventory.repository.CdiDeviceRepository;
import io.rediacc.gpu.inventory.repository.FleetFilter;
import io.rediacc.gpu.inventory.repository.GateGrantRepository;
import io.rediacc.gpu.inventory.repository.GateRepository;
import io.rediacc.gpu.inventory.repository.GpuRepository;
import io.rediacc.gpu.inventory.repository.MachineRepoRepository;
import io.rediacc.gpu.inventory.repository.MachineRepository;
import io.rediacc.gpu.inventory.repository.RawInventoryRepository;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** Answers the fleet queries from the read model. */
@ApplicationScoped
public class FleetQueryService {

    private final MachineRepository machines;
    private final RawInventoryRepository rawInventories;
    private final GpuRepository gpus;
    private final CdiDeviceRepository cdiDevices;
    private final MachineRepoRepository repos;
    private final GateRepository gates;
    private final GateGrantRepository gateGrants;
    private final InventoryConfig config;

    public FleetQueryService(MachineRepository machines, RawInventoryRepository rawInventories, GpuRepository gpus,
                             CdiDeviceRepository cdiDevices, MachineRepoRepository repos, GateRepository gates,
                             GateGrantRepository gateGrants, InventoryConfig config) {
        this.machines = machines;
        this.rawInventories = rawInventories;
        this.gpus = gpus;
        this.cdiDevices = cdiDevices;
        this.repos = repos;
        this.gates = gates;
        this.gateGrants = gateGrants;
        this.config = config;
    }

    @WithSession
    public Uni<Page<MachineSummary>> machines(FleetFilter filter, int page, int size) {
        Instant now = Instant.now();
        // one session runs one statement at a time: chain, never combine
        return machines.count(filter, now).chain(total -> machines.page(filter, now, page, size)
                .chain(list -> gpus.countByMachine(list.stream().map(m -> m.name).toList())
                        .map(counts -> new Page<>(list.stream()
                                .map(m -> summary(m, counts.getOrDefault(m.name, 0L).intValue(), now))
                                .toList(), page, size, total))));
    }

    @WithSession
    public Uni<MachineDetail> machine(String name) {
        Instant now = Instant.now();
        return existing(name).chain(machine -> gpus.byMachine(name)
                .chain(gpuRows -> cdiDevices.byMachine(name)
                        .chain(deviceRows -> repos.byMachine(name)
                                .chain(repoRows -> gates.byMachine(name)
                                        .chain(gateRows -> gateGrants.byGates(liveKeys(gateRows, now))
                                                .map(grantRows -> detail(machine, gpuRows, deviceRows,
                                                        repoRows.stream().map(r -> new RepoInfo(r.name, r.guid, r.forkOf)).toList(),
                                                        gateRows, grantRows, now)))))));
    }

    @WithSession
    public Uni<List<MachineInventory.Gpu>> gpusOf(String name) {
        return existing(name).chain(m -> gpus.byMachine(name)).map(rows -> rows.stream().map(GpuRow::toGpu).toList());
    }

    @WithSession
    public Uni<String> rawInventory(String name) {
        return rawInventories.findById(name).map(raw -> {
            if (raw == null) {
                throw new UnknownMachineException(name);
            }
            return raw.json;
        });
    }

    @WithSession
    public Uni<Page<FleetGpu>> fleetGpus(String vendor, String product, int page, int size) {
        return gpus.count(vendor, product).chain(total -> gpus.page(vendor, product, page, size)
                .map(rows -> new Page<>(rows.stream().map(FleetQueryService::fleetGpu).toList(), page, size, total)));
    }

    private Uni<Machine> existing(String name) {
        return machines.findById(name).map(m -> {
            if (m == null) {
                throw new UnknownMachineException(name);
            }
            return m;
        });
    }

    private MachineSummary summary(Machine m, int gpuCount, Instant now) {
        return new MachineSummary(m.name, m.platform, gpuCount, m.generatedAt, ageSeconds(m, now), stale(m, now),
                m.agentVersion);
    }

    private MachineDetail detail(Machine m, List<GpuRow> gpuRows, List<CdiDeviceRow> deviceRows, List<RepoInfo> repoInfos,
                                 List<Gate> gateRows, List<GateGrantRow> liveGrants, Instant now) {
        Map<String, List<GateGrantRow>> grantsByDevice = liveGrants.stream()
                .collect(Collectors.groupingBy(g -> g.device, LinkedHashMap::new, Collectors.toList()));
        List<CdiDeviceView> devices = deviceRows.stream()
                .map(d -> new CdiDeviceView(d.name, JsonText.strings(d.deviceNodesJson), d.specFile, d.specDigest,
                        holders(grantsByDevice.getOrDefault(d.name, List.of()))))
                .toList();
        List<GateView> gateViews = gateRows.stream()
                .map(g -> new GateView(g.gateId, g.appliedVersion, g.state, g.liveAt(now), g.syncedAt, g.lastSeenAt,
                        g.heartbeatSeconds))
                .toList();
        return new MachineDetail(m.name, m.platform, m.generatedAt, ageSeconds(m, now), stale(m, now), m.agentVersion,
                gpuRows.stream().map(GpuRow::toGpu).toList(), devices, repoInfos, gateViews,
                JsonText.toolkit(m.toolkitJson), m.persistencedSocket, JsonText.strings(m.specProblemsJson));
    }

    /** One holder per repo, merging the reports of several live gates of the machine. */
    private static List<Holder> holders(List<GateGrantRow> grants) {
        Map<String, List<GateGrantRow>> byRepo = grants.stream()
                .collect(Collectors.groupingBy(g -> g.repoGuid != null ? g.repoGuid : "name:" + g.repoName,
                        LinkedHashMap::new, Collectors.toList()));
        List<Holder> holders = new ArrayList<>();
        byRepo.values().forEach(rows -> {
            GateGrantRow first = rows.get(0);
            boolean exclusive = rows.stream().anyMatch(r -> r.exclusive);
            List<String> gateIds = rows.stream().map(r -> r.gateId).distinct().sorted().toList();
            holders.add(new Holder(first.repoName, first.repoGuid, exclusive, Holder.SOURCE_GATE, gateIds));
        });
        return holders;
    }

    private static List<String> liveKeys(List<Gate> gateRows, Instant now) {
        return gateRows.stream().filter(g -> g.liveAt(now)).map(g -> g.key).toList();
    }

    private static long ageSeconds(Machine m, Instant now) {
        // a machine clock slightly ahead must not produce a negative age
        return Math.max(0, Duration.between(m.generatedAt, now).getSeconds());
    }

    private boolean stale(Machine m, Instant now) {
        return m.generatedAt.isBefore(now.minus(config.staleAfter()));
    }

    private static FleetGpu fleetGpu(GpuRow g) {
        return new FleetGpu(g.machine, g.gpuIndex, g.vendor, g.name, g.uuid, g.pciBusId, g.driverVersion, g.memoryMiB,
                g.renderNode, g.migMode);
    }
}
