package io.rediacc.gpu.cli.machine;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.contracts.api.CdiDeviceView;
import io.rediacc.gpu.contracts.api.Holder;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * For {@code rdc machine gpu list}: the physical card(s) each CDI name reaches (the PCI addresses
 * node-agent placed it on) and who reserves one of those cards exclusively, under whatever name.
 * An exclusive grant of {@code rediacc.io/dri=renderD128} shows on {@code nvidia.com/gpu=0}, its
 * UUID name and {@code all} too, because grant-service refuses those names to everyone else.
 */
final class CardReservations {

    private final Map<String, List<String>> cardsByName;
    private final Map<String, String> gpuByCard = new HashMap<>();
    /** Exclusive holders by device name: repo names, from the live gates and the database. */
    private final Map<String, TreeSet<String>> exclusiveByDevice = new LinkedHashMap<>();

    private CardReservations(Map<String, List<String>> cardsByName, List<Gpu> gpus) {
        this.cardsByName = cardsByName;
        for (Gpu gpu : gpus) {
            if (gpu.pciBusId() != null) {
                gpuByCard.put(gpu.pciBusId().toLowerCase(java.util.Locale.ROOT), gpu.vendor() + " " + gpu.index());
            }
        }
    }

    /**
     * @param stored the machine's stored inventory (what setup wrote), whose devices carry their cards
     *               when the fleet's read model does not; may be null
     */
    static CardReservations of(List<CdiDeviceView> devices, JsonNode stored, List<Gpu> gpus, List<Grant> dbGrants) {
        Map<String, List<String>> cards = new HashMap<>();
        if (stored != null) {
            for (JsonNode d : stored.path("cdiDevices")) {
                List<String> reached = new ArrayList<>();
                d.path("cards").forEach(c -> reached.add(c.asText().toLowerCase(java.util.Locale.ROOT)));
                if (d.path("name").isTextual() && !reached.isEmpty()) {
                    cards.put(d.path("name").textValue(), reached);
                }
            }
        }
        CardReservations r = new CardReservations(cards, gpus);
        for (CdiDeviceView d : devices) {
            for (Holder h : d.holders()) {
                if (h.exclusive()) {
                    r.exclusiveByDevice.computeIfAbsent(d.name(), k -> new TreeSet<>()).add(h.repo());
                }
            }
        }
        if (dbGrants != null) {
            for (Grant g : dbGrants) {
                if (g.exclusive()) {
                    r.exclusiveByDevice.computeIfAbsent(g.device(), k -> new TreeSet<>()).add(g.repoName());
                }
            }
        }
        return r;
    }

    /** Whether the inventory placed any name on a card (older agents do not). */
    boolean known() {
        return !cardsByName.isEmpty();
    }

    /** The card(s) the name reaches: {@code nvidia 0 (0000:18:00.0)}, a list of GPUs, or {@code -}. */
    String card(String device) {
        List<String> cards = cardsByName.getOrDefault(device, List.of());
        if (cards.isEmpty()) {
            return "-";
        }
        if (cards.size() == 1) {
            String gpu = gpuByCard.get(cards.get(0));
            return gpu == null ? cards.get(0) : gpu + " (" + cards.get(0) + ")";
        }
        List<String> labels = cards.stream().map(c -> gpuByCard.getOrDefault(c, c)).toList();
        return labels.size() <= 4 ? String.join(", ", labels) : labels.size() + " cards";
    }

    /** Who reserves a card this name reaches: {@code train-a}, or {@code train-a (as rediacc.io/dri=renderD128)}. */
    String reservedBy(String device) {
        List<String> mine = cardsByName.getOrDefault(device, List.of());
        TreeSet<String> labels = new TreeSet<>();
        exclusiveByDevice.forEach((held, repos) -> {
            boolean same = held.equals(device);
            if (same || mine.stream().anyMatch(cardsByName.getOrDefault(held, List.of())::contains)) {
                repos.forEach(repo -> labels.add(same ? repo : repo + " (as " + held + ")"));
            }
        });
        return labels.isEmpty() ? "-" : String.join(", ", labels);
    }
}
