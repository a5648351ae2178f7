package io.rediacc.gpu.grants.service;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides whether two CDI devices share a card, from their device nodes. Only nodes that stand for
 * one card count: {@code /dev/nvidiaN}, {@code /dev/dri/renderDN}, {@code /dev/dri/cardN} and WSL's
 * {@code /dev/dxg}. Control nodes every device carries ({@code /dev/nvidiactl}, {@code /dev/nvidia-uvm},
 * {@code /dev/kfd}…) would make every pair of GPUs look shared.
 */
public final class CardOverlap {

    private static final Pattern CARD_NODE = Pattern.compile("/dev/nvidia\\d+|/dev/dri/(renderD|card)\\d+|/dev/dxg");

    private CardOverlap() {
    }

    static boolean isCardNode(String path) {
        return path != null && CARD_NODE.matcher(path).matches();
    }

    /** The card nodes among a device's nodes. */
    public static Set<String> cards(List<String> deviceNodes) {
        Set<String> cards = new HashSet<>();
        for (String node : deviceNodes) {
            if (isCardNode(node)) {
                cards.add(node);
            }
        }
        return cards;
    }

    /** True when the two devices are the same name or share at least one card. */
    public static boolean overlaps(String deviceA, String deviceB, Map<String, List<String>> nodesByName) {
        if (deviceA.equals(deviceB)) {
            return true;
        }
        Set<String> a = cards(nodesByName.getOrDefault(deviceA, List.of()));
        Set<String> b = cards(nodesByName.getOrDefault(deviceB, List.of()));
        a.retainAll(b);
        return !a.isEmpty();
    }
}
