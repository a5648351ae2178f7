package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.api.CdiDeviceView;
import io.rediacc.gpu.contracts.api.OrphanedDevice;
import io.rediacc.gpu.inventory.api.GpuPage;
import io.rediacc.gpu.contracts.api.Holder;
import io.rediacc.gpu.inventory.api.Page;
import io.rediacc.gpu.contracts.api.MachineDetail;
import io.rediacc.gpu.inventory.api.MachineSummary;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.repository.FleetFilter;
import io.rediacc.gpu.inventory.repository.GpuListing;
import io.rediacc.gpu.inventory.repository.GpuRepository;
import io.rediacc.gpu.inventory.repository.MachineDetailQuery;
import io.rediacc.gpu.inventory.repository.MachineRepository;
import io.rediacc.gpu.inventory.repository.RawInventoryRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Answers the fleet queries from the read model. */
@ApplicationScoped
public class FleetQueryService {

    private final MachineRepository machines;
    private final RawInventoryRepository rawInventories;
    private final GpuRepository gpus;
    private final MachineDetailQuery detailQuery;
    private final GpuListing gpuListing;
    private final InventoryConfig config;
    private final java.time.Clock clock;

    public FleetQueryService(MachineRepository machines, RawInventoryRepository rawInventories, GpuRepository gpus,
                             MachineDetailQuery detailQuery, GpuListing gpuListing, InventoryConfig config,
                             java.time.Clock clock) {
        this.clock = clock;
        this.machines = machines;
        this.rawInventories = rawInventories;
        this.gpus = gpus;
        this.detailQuery = detailQuery;
        this.gpuListing = gpuListing;
        this.config = config;
    }

    public Uni<Page<MachineSummary>> machines(FleetFilter filter, int page, int size) {
        Instant now = clock.instant();
        return machines.count(filter, now).chain(total -> machines.page(filter, now, page, size)
                .chain(list -> gpus.countByMachine(list.stream().map(MachineRepository.Listed::name).toList())
                        .map(counts -> new Page<>(list.stream()
                                .map(m -> summary(m, counts.getOrDefault(m.name(), 0L).intValue(), now))
                                .toList(), page, size, total))));
    }

    public Uni<MachineDetail> machine(String name) {
        Instant now = clock.instant();
        return detailQuery.find(name, now).map(found -> {
            if (found == null) {
                throw new UnknownMachineException(name);
            }
            return detail(found, now);
        });
    }

    public Uni<List<MachineInventory.Gpu>> gpusOf(String name) {
        return machines.exists(name).chain(known -> {
            if (!known) {
                throw new UnknownMachineException(name);
            }
            return gpus.byMachine(name);
        });
    }

    public Uni<String> rawInventory(String name) {
        return rawInventories.json(name).map(raw -> {
            if (raw == null) {
                throw new UnknownMachineException(name);
            }
            return SetupFileBytes.of(raw);
        });
    }

    /**
     * A page of the fleet's GPUs: after a cursor, or by number. A page by number starts at a key
     * found without reading the rows before it (see {@link GpuListing}); the unfiltered listing's
     * total may be up to a second old.
     */
    public Uni<GpuPage> fleetGpus(String vendor, String product, int page, int size, GpuCursor after) {
        boolean filtered = vendor != null || product != null;
        if (after != null) {
            GpuListing.Key from = new GpuListing.Key(after.machine(), after.gpuIndex(), after.id());
            Uni<Long> total = filtered ? gpuListing.count(vendor, product) : gpuListing.anchors(size).map(GpuListing.Anchors::total);
            return total.chain(t -> gpuPage(vendor, product, from, false, after.page(), size, t));
        }
        if (!filtered) {
            return gpuListing.anchors(size).chain(anchors -> page >= anchors.pageStarts().size()
                    ? Uni.createFrom().item(new GpuPage(List.of(), page, size, anchors.total(), null))
                    : gpuPage(null, null, anchors.pageStarts().get(page), true, page, size, anchors.total()));
        }
        return gpuListing.count(vendor, product).chain(total -> (long) page * size >= total
                ? Uni.createFrom().item(new GpuPage(List.of(), page, size, total, null))
                : gpuListing.keyAt(vendor, product, (long) page * size).chain(start -> start == null
                        ? Uni.createFrom().item(new GpuPage(List.of(), page, size, total, null))
                        : gpuPage(vendor, product, start, true, page, size, total)));
    }

    private Uni<GpuPage> gpuPage(String vendor, String product, GpuListing.Key from, boolean inclusive, int page, int size,
                                 long total) {
        // one more than the page: whether a next page exists, without counting
        return gpuListing.page(vendor, product, from, inclusive, size + 1).map(listed -> {
            List<GpuListing.Listed> items = listed.size() > size ? listed.subList(0, size) : listed;
            String next = null;
            if (listed.size() > size) {
                GpuListing.Key last = items.get(items.size() - 1).key();
                next = new GpuCursor(page + 1, last.machine(), last.gpuIndex(), last.id()).encode();
            }
            return new GpuPage(items.stream().map(GpuListing.Listed::gpu).toList(), page, size, total, next);
        });
    }

    private MachineDetail detail(MachineDetailQuery.Found m, Instant now) {
        MachineDetailQuery.Parts parts = m.parts();
        Map<String, List<MachineDetailQuery.LiveGrant>> grantsByDevice = byDevice(parts.liveGrants());
        List<CdiDeviceView> devices = new ArrayList<>(parts.devices().size());
        for (MachineDetailQuery.Device d : parts.devices()) {
            devices.add(new CdiDeviceView(d.name(), d.deviceNodes(), d.specFile(), d.specDigest(),
                    holders(grantsByDevice.get(d.name()))));
        }
        return new MachineDetail(m.name(), m.platform(), m.generatedAt(), ageSeconds(m.generatedAt(), now),
                stale(m.generatedAt(), now), m.agentVersion(), parts.gpus(), devices, parts.repos(), parts.gates(),
                parts.toolkit(), m.persistencedSocket(), parts.specProblems(), orphaned(parts.devices(), grantsByDevice));
    }

    // The detail is the fleet's hottest read: these helpers are plain loops that allocate nothing when a
    // machine's live gates hold no grant (most machines, most of the time), where streams built their
    // collectors for every device anyway.

    /** The live grants by device, in the order the query gave (device, repo). */
    private static Map<String, List<MachineDetailQuery.LiveGrant>> byDevice(List<MachineDetailQuery.LiveGrant> grants) {
        if (grants.isEmpty()) {
            return Map.of();
        }
        Map<String, List<MachineDetailQuery.LiveGrant>> byDevice = new LinkedHashMap<>();
        for (MachineDetailQuery.LiveGrant g : grants) {
            byDevice.computeIfAbsent(g.device(), k -> new ArrayList<>()).add(g);
        }
        return byDevice;
    }

    /** Names the live gates hold grants for that the inventory no longer defines (a setup removed them). */
    private static List<OrphanedDevice> orphaned(List<MachineDetailQuery.Device> devices,
                                                 Map<String, List<MachineDetailQuery.LiveGrant>> grantsByDevice) {
        if (grantsByDevice.isEmpty()) {
            return List.of();
        }
        Set<String> defined = new HashSet<>();
        for (MachineDetailQuery.Device d : devices) {
            defined.add(d.name());
        }
        List<OrphanedDevice> orphaned = new ArrayList<>();
        new TreeMap<>(grantsByDevice).forEach((device, grants) -> {
            if (!defined.contains(device)) {
                orphaned.add(new OrphanedDevice(device, holders(grants)));
            }
        });
        return orphaned;
    }

    /** One holder per repo, merging the reports of several live gates of the machine. */
    private static List<Holder> holders(List<MachineDetailQuery.LiveGrant> grants) {
        if (grants == null || grants.isEmpty()) {
            return List.of();
        }
        Map<String, List<MachineDetailQuery.LiveGrant>> byRepo = new LinkedHashMap<>();
        for (MachineDetailQuery.LiveGrant g : grants) {
            byRepo.computeIfAbsent(g.repoGuid() != null ? g.repoGuid() : "name:" + g.repoName(), k -> new ArrayList<>()).add(g);
        }
        List<Holder> holders = new ArrayList<>(byRepo.size());
        for (List<MachineDetailQuery.LiveGrant> rows : byRepo.values()) {
            MachineDetailQuery.LiveGrant first = rows.get(0);
            boolean exclusive = false;
            Set<String> gateIds = new TreeSet<>();
            for (MachineDetailQuery.LiveGrant row : rows) {
                exclusive |= row.exclusive();
                gateIds.add(row.gateId());
            }
            holders.add(new Holder(first.repoName(), first.repoGuid(), exclusive, Holder.SOURCE_GATE, List.copyOf(gateIds)));
        }
        return holders;
    }

    private MachineSummary summary(MachineRepository.Listed m, int gpuCount, Instant now) {
        return new MachineSummary(m.name(), m.platform(), gpuCount, m.generatedAt(), ageSeconds(m.generatedAt(), now),
                stale(m.generatedAt(), now), m.agentVersion());
    }

    private static long ageSeconds(Instant generatedAt, Instant now) {
        // a machine clock slightly ahead must not produce a negative age
        return Math.max(0, Duration.between(generatedAt, now).getSeconds());
    }

    private boolean stale(Instant generatedAt, Instant now) {
        return generatedAt.isBefore(now.minus(config.staleAfter()));
    }
}
