package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.client.InventoryViews.CdiDevice;
import io.rediacc.gpu.cli.client.InventoryViews.Holder;
import io.rediacc.gpu.contracts.events.Grant;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who holds each device: the live gates' report (what is enforced now) side by side with
 * grant-service's database (what was granted). Where they disagree, each holder says so:
 * {@code (db only)} — granted but not enforced by the gate; {@code (gate only)} — enforced but
 * no longer (or not yet) in the database.
 */
final class HolderMerge {

    /** One device row: its name and the holders as printed. */
    record DeviceHolders(String device, boolean inInventory, List<String> holders) {
    }

    private HolderMerge() {
    }

    /**
     * @param dbGrants the database's grants of the machine, or null when grant-service could not
     *                 be asked (then no holder is flagged)
     */
    static List<DeviceHolders> merge(List<CdiDevice> devices, List<Grant> dbGrants) {
        Map<String, List<Grant>> dbByDevice = new LinkedHashMap<>();
        if (dbGrants != null) {
            dbGrants.forEach(g -> dbByDevice.computeIfAbsent(g.device(), d -> new ArrayList<>()).add(g));
        }
        List<DeviceHolders> rows = new ArrayList<>();
        for (CdiDevice device : devices) {
            rows.add(new DeviceHolders(device.name(), true,
                    labels(device.holders(), dbByDevice.remove(device.name()), dbGrants != null)));
        }
        // granted in the database, but the machine no longer (or never) defined the name
        new TreeMap<>(dbByDevice).forEach((device, grants) ->
                rows.add(new DeviceHolders(device, false, labels(List.of(), grants, true))));
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
