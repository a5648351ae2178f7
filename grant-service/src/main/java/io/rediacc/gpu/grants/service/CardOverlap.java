package io.rediacc.gpu.grants.service;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which physical cards each CDI device of a machine reaches, from the device nodes of its specs.
 * Only nodes that stand for one card count: {@code /dev/nvidiaN}, {@code /dev/dri/renderDN},
 * {@code /dev/dri/cardN} and WSL's {@code /dev/dxg}. Control nodes every device carries
 * ({@code /dev/nvidiactl}, {@code /dev/nvidia-uvm}, {@code /dev/kfd}, MIG's {@code /dev/nvidia-caps/*})
 * would make every pair of GPUs look shared.
 * <p>
 * A card has several nodes: {@code /dev/nvidia1} (its minor, not necessarily its index) and its DRM
 * nodes {@code /dev/dri/card1} and {@code /dev/dri/renderD129}. The nodes of a device that names one
 * card (at most one node of each kind) are the same card; a device with several nodes of one kind
 * ({@code =all}) names several cards and joins none. So {@code nvidia.com/gpu=0} teaches that
 * {@code renderD129} is card {@code /dev/nvidia1}, and a MIG slice, which lists only its parent's
 * {@code /dev/nvidia1}, then reaches {@code rediacc.io/dri=renderD129} too.
 * <p>
 * The inventory also says which cards each device reaches by PCI address (node-agent reads sysfs
 * and the NVIDIA driver's {@code /proc} entries, whatever the spec lists): an address is one more
 * node of its card here, so {@code nvidia.com/gpu=0} (only {@code /dev/nvidia0} in its spec) and
 * {@code rediacc.io/dri=renderD128} (only the render node) are the same card when both reach
 * {@code 0000:18:00.0}. Without addresses (an older agent, WSL) the nodes alone decide, as before.
 */
public final class CardOverlap {

    private static final Pattern CARD_NODE = Pattern.compile("/dev/nvidia\\d+|/dev/dri/(renderD|card)\\d+|/dev/dxg");
    /** A PCI address joins the nodes under this prefix: it can never be mistaken for a path. */
    private static final String ADDRESS = "pci:";

    private final Map<String, Set<String>> cardsByDevice = new HashMap<>();

    private CardOverlap(Map<String, List<String>> nodesByName, Map<String, List<String>> cardsByName) {
        Map<String, List<String>> keysByName = new HashMap<>();
        nodesByName.forEach((name, nodes) -> {
            List<String> keys = new java.util.ArrayList<>(nodes.stream().filter(CardOverlap::isCardNode).distinct().toList());
            cardsByName.getOrDefault(name, List.of()).stream().distinct().forEach(card -> keys.add(ADDRESS + card));
            keysByName.put(name, keys);
        });
        Map<String, String> parent = new HashMap<>();
        for (List<String> cardNodes : keysByName.values()) {
            cardNodes.forEach(n -> parent.putIfAbsent(n, n));
            if (namesOneCard(cardNodes)) {
                for (int i = 1; i < cardNodes.size(); i++) {
                    union(parent, cardNodes.get(0), cardNodes.get(i));
                }
            }
        }
        keysByName.forEach((name, keys) -> {
            Set<String> cards = new HashSet<>();
            for (String key : keys) {
                cards.add(find(parent, key));
            }
            cardsByDevice.put(name, cards);
        });
    }

    /** The cards of a machine's devices (name to device nodes), from the nodes alone. */
    public static CardOverlap of(Map<String, List<String>> nodesByName) {
        return new CardOverlap(nodesByName, Map.of());
    }

    /** The cards of a machine's devices: name to device nodes, and name to the PCI addresses it reaches. */
    public static CardOverlap of(Map<String, List<String>> nodesByName, Map<String, List<String>> cardsByName) {
        return new CardOverlap(nodesByName, cardsByName);
    }

    static boolean isCardNode(String path) {
        return path != null && CARD_NODE.matcher(path).matches();
    }

    /** True when the two devices are the same name or reach at least one common card. */
    public boolean overlaps(String deviceA, String deviceB) {
        if (deviceA.equals(deviceB)) {
            return true;
        }
        Set<String> a = cardsByDevice.getOrDefault(deviceA, Set.of());
        for (String card : cardsByDevice.getOrDefault(deviceB, Set.of())) {
            if (a.contains(card)) {
                return true;
            }
        }
        return false;
    }

    /** One-off form of {@link #overlaps(String, String)}. */
    public static boolean overlaps(String deviceA, String deviceB, Map<String, List<String>> nodesByName) {
        return of(nodesByName).overlaps(deviceA, deviceB);
    }

    /** At most one node (or address) of each kind: the device names one card, so its nodes are one card's. */
    private static boolean namesOneCard(List<String> cardNodes) {
        int nvidia = 0;
        int render = 0;
        int card = 0;
        int address = 0;
        for (String n : cardNodes) {
            if (n.startsWith(ADDRESS)) {
                address++;
            } else if (n.startsWith("/dev/nvidia")) {
                nvidia++;
            } else if (n.startsWith("/dev/dri/renderD")) {
                render++;
            } else if (n.startsWith("/dev/dri/card")) {
                card++;
            }
        }
        return nvidia <= 1 && render <= 1 && card <= 1 && address <= 1;
    }

    private static String find(Map<String, String> parent, String node) {
        String root = node;
        while (!parent.get(root).equals(root)) {
            root = parent.get(root);
        }
        return root;
    }

    private static void union(Map<String, String> parent, String a, String b) {
        String ra = find(parent, a);
        String rb = find(parent, b);
        if (!ra.equals(rb)) {
            parent.put(rb, ra);
        }
    }
}
