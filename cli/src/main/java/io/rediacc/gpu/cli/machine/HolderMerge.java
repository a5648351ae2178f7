package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.contracts.api.CdiDeviceView;
import io.rediacc.gpu.contracts.api.Holder;
import io.rediacc.gpu.contracts.api.OrphanedDevice;
import io.rediacc.gpu.contracts.events.Grant;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Who holds each device: the live gates' report (what is enforced now) side by side with
 * grant-service's database (what was granted). Where they disagree, each holder says so:
 * {@code (db only)} — granted but not enforced by the gate; {@code (gate only)} — enforced but
 * no longer (or not yet) in the database.
 */
final class HolderMerge {

    /**
     * One device row: its name, whether a service reports it orphaned, and the holders as printed.
     *
     * @param orphaned grant-service or inventory-service reports the name granted but no longer defined by the
     *                 machine's inventory: rdc shows what they report, it does not decide it
     */
    record DeviceHolders(String device, boolean orphaned, List<String> holders) {
    }

    /**
     * What the services report orphaned: grant-service's names (granted in its database) and inventory-service's
     * devices (held by the live gates, with those holders).
     */
    record ReportedOrphans(Set<String> names, Map<String, List<Holder>> gateHolders) {

        static final ReportedOrphans NONE = new ReportedOrphans(Set.of(), Map.of());

        static ReportedOrphans of(List<String> byGrantService, List<OrphanedDevice> byInventoryService) {
            Set<String> names = new TreeSet<>(byGrantService);
            Map<String, List<Holder>> holders = new LinkedHashMap<>();
            byInventoryService.forEach(o -> {
                names.add(o.name());
                holders.put(o.name(), o.holders());
            });
            return new ReportedOrphans(Set.copyOf(names), Map.copyOf(holders));
        }
    }

    private HolderMerge() {
    }

    /**
     * @param dbGrants the database's grants of the machine, or null when grant-service could not
     *                 be asked (then no holder is flagged)
     * @param orphans  what the services report orphaned
     */
    static List<DeviceHolders> merge(List<CdiDeviceView> devices, List<Grant> dbGrants, ReportedOrphans orphans) {
        Map<String, List<Grant>> dbByDevice = new LinkedHashMap<>();
        if (dbGrants != null) {
            dbGrants.forEach(g -> dbByDevice.computeIfAbsent(g.device(), d -> new ArrayList<>()).add(g));
        }
        List<DeviceHolders> rows = new ArrayList<>();
        for (CdiDeviceView device : devices) {
            rows.add(new DeviceHolders(device.name(), orphans.names().contains(device.name()),
                    labels(device.holders(), dbByDevice.remove(device.name()), dbGrants != null)));
        }
        // names the machine's inventory does not list: granted in the database, or held by a live gate
        TreeSet<String> beyond = new TreeSet<>(dbByDevice.keySet());
        beyond.addAll(orphans.gateHolders().keySet());
        devices.forEach(d -> beyond.remove(d.name()));
        for (String device : beyond) {
            rows.add(new DeviceHolders(device, orphans.names().contains(device),
                    labels(orphans.gateHolders().getOrDefault(device, List.of()), dbByDevice.get(device), dbGrants != null)));
        }
        return rows;
    }

    private static List<String> labels(List<Holder> gate, List<Grant> db, boolean compare) {
        Map<String, Holder> gateByRepo = new LinkedHashMap<>();
        gate.forEach(h -> gateByRepo.put(key(h.repoGuid(), h.repo()), h));
        Map<String, Grant> dbByRepo = new LinkedHashMap<>();
        if (db != null) {
            db.forEach(g -> dbByRepo.put(key(g.repoGuid(), g.repoName()), g));
        }
        TreeMap<String, String> byName = new TreeMap<>();
        gateByRepo.forEach((key, h) -> {
            Grant g = dbByRepo.get(key);
            List<String> flags = new ArrayList<>();
            if (g == null) {
                if (h.exclusive()) {
                    flags.add("exclusive");
                }
                if (compare) {
                    flags.add("gate only");
                }
            } else if (h.exclusive() && g.exclusive()) {
                flags.add("exclusive");
            } else if (h.exclusive()) {
                flags.add("exclusive in gate only");
            } else if (g.exclusive()) {
                flags.add("exclusive in db only");
            }
            byName.put(name(h.repo(), key) + key, label(name(h.repo(), key), flags));
        });
        dbByRepo.forEach((key, g) -> {
            if (!gateByRepo.containsKey(key)) {
                List<String> flags = new ArrayList<>();
                if (g.exclusive()) {
                    flags.add("exclusive");
                }
                flags.add("db only");
                byName.put(name(g.repoName(), key) + key, label(name(g.repoName(), key), flags));
            }
        });
        return List.copyOf(byName.values());
    }

    private static String key(String guid, String name) {
        return guid != null ? guid : "name:" + name;
    }

    private static String name(String repo, String key) {
        return repo != null ? repo : key;
    }

    private static String label(String repo, List<String> flags) {
        return flags.isEmpty() ? repo : repo + " (" + String.join(", ", flags) + ")";
    }
}
