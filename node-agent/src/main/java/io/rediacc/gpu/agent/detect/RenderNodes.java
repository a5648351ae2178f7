package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.HostRoot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds every {@code /dev/dri/renderD<N>} and its card's PCI vendor, device and address from
 * {@code /sys/class/drm/renderD<N>/device} ({@code vendor}, {@code device}, {@code uevent}'s
 * {@code PCI_SLOT_NAME}, or the name the {@code device} link points to).
 */
public final class RenderNodes {

    private static final Pattern RENDER = Pattern.compile("renderD(\\d+)");

    private RenderNodes() {
    }

    public static List<RenderNode> scan(HostRoot host) {
        Path dri = host.path(HostRoot.DRI_DIR);
        List<RenderNode> nodes = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dri)) {
            for (Path entry : entries.toList()) {
                Matcher m = RENDER.matcher(entry.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                int minor = Integer.parseInt(m.group(1));
                String name = "renderD" + minor;
                Path device = host.path(HostRoot.DRM_CLASS + "/" + name + "/device");
                GpuVendor vendor = GpuVendor.fromSysfs(HostRoot.readTrimmed(device.resolve("vendor")).orElse(null));
                String pciDevice = HostRoot.readTrimmed(device.resolve("device")).orElse(null);
                nodes.add(new RenderNode(minor, HostRoot.DRI_DIR + "/" + name, vendor, pciAddress(device).orElse(null),
                        pciDevice));
            }
        } catch (IOException e) {
            return List.of(); // no /dev/dri: no render nodes
        }
        nodes.sort(Comparator.comparingInt(RenderNode::minor));
        return nodes;
    }

    static Optional<String> pciAddress(Path device) {
        Optional<String> slot = HostRoot.readTrimmed(device.resolve("uevent")).flatMap(uevent -> uevent.lines()
                .filter(l -> l.startsWith("PCI_SLOT_NAME="))
                .map(l -> l.substring("PCI_SLOT_NAME=".length()))
                .findFirst());
        if (slot.isEmpty() && Files.isSymbolicLink(device)) {
            try {
                slot = Optional.of(Files.readSymbolicLink(device).getFileName().toString());
            } catch (IOException ignored) {
                // no address then
            }
        }
        return slot.flatMap(PciAddress::parse).map(PciAddress::toString);
    }
}
