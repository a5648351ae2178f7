package io.rediacc.gpu.agent.cdi;

import io.rediacc.gpu.agent.detect.AmdCard;
import io.rediacc.gpu.agent.detect.GpuDetection;
import io.rediacc.gpu.agent.detect.RenderNode;
import io.rediacc.gpu.agent.host.AtomicFiles;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.cdi.CdiSpec.ContainerEdits;
import io.rediacc.gpu.contracts.cdi.CdiSpec.Device;
import io.rediacc.gpu.contracts.cdi.CdiSpec.DeviceNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The specs the product generates itself, without vendor user space:
 * <ul>
 *   <li>{@code rediacc.io/dri=renderD<N>}: one device per render node, that node only;</li>
 *   <li>{@code rediacc.io/amd=gpu<N>}: per AMD card, {@code /dev/kfd} plus the card's render node,
 *   and {@code rediacc.io/amd=all} with every AMD card — only where {@code /dev/kfd} exists.</li>
 * </ul>
 * A spec whose devices are gone is removed, so a stale name stops being grantable.
 */
public final class OwnSpecs {

    public static final String DRI_KIND = "rediacc.io/dri";
    public static final String AMD_KIND = "rediacc.io/amd";

    /** What writing the specs changed, as host paths. */
    public record Outcome(List<String> written, List<String> unchanged, List<String> removed) {
    }

    private OwnSpecs() {
    }

    public static List<Device> driDevices(List<RenderNode> nodes) {
        List<Device> devices = new ArrayList<>();
        for (RenderNode n : nodes) {
            devices.add(device(n.name(), List.of(n.devicePath())));
        }
        return devices;
    }

    public static List<Device> amdDevices(boolean kfdPresent, List<AmdCard> cards) {
        List<Device> devices = new ArrayList<>();
        if (!kfdPresent) {
            return devices; // no AMD compute without /dev/kfd; render nodes stay grantable through rediacc.io/dri
        }
        List<String> all = new ArrayList<>(List.of(HostRoot.KFD));
        for (AmdCard card : cards) {
            if (card.renderNode() == null) {
                continue; // KFD names a render minor without a device node: nothing a container could open
            }
            devices.add(device("gpu" + card.index(), List.of(HostRoot.KFD, card.renderNode().devicePath())));
            all.add(card.renderNode().devicePath());
        }
        if (!devices.isEmpty()) {
            devices.add(device("all", all));
        }
        return devices;
    }

    public static Outcome write(HostRoot host, GpuDetection detection) throws IOException {
        List<String> written = new ArrayList<>();
        List<String> unchanged = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        apply(host, HostRoot.DRI_SPEC, DRI_KIND, underRoot(host, driDevices(detection.renderNodes())), written, unchanged,
                removed);
        apply(host, HostRoot.AMD_SPEC, AMD_KIND, underRoot(host, amdDevices(detection.kfdPresent(), detection.amdCards())),
                written, unchanged, removed);
        return new Outcome(written, unchanged, removed);
    }

    private static void apply(HostRoot host, String hostPath, String kind, List<Device> devices, List<String> written,
                              List<String> unchanged, List<String> removed) throws IOException {
        Path file = host.path(hostPath);
        if (devices.isEmpty()) {
            if (Files.deleteIfExists(file)) {
                removed.add(hostPath);
            }
            return;
        }
        if (AtomicFiles.write(file, CdiSpecYaml.render(kind, devices))) {
            written.add(hostPath);
        } else {
            unchanged.add(hostPath);
        }
    }

    /**
     * On a simulated machine (a root other than {@code /}) each node's {@code hostPath} is its place
     * under the root, so a real dockerd injects the simulated node (hostPath needs cdiVersion 0.5.0);
     * on a real machine the spec names container paths only, which are the host's (0.3.0).
     */
    static List<Device> underRoot(HostRoot host, List<Device> devices) {
        if (host.isSystemRoot()) {
            return devices;
        }
        return devices.stream().map(d -> new Device(d.name(), null, ContainerEdits.ofDeviceNodes(d.containerEdits().deviceNodes()
                .stream().map(n -> new DeviceNode(n.path(), host.path(n.path()).toString(), null, null, null, null, null, null, null))
                .toList()))).toList();
    }

    private static Device device(String name, List<String> nodes) {
        return new Device(name, null, ContainerEdits.ofDeviceNodes(nodes.stream().map(DeviceNode::of).toList()));
    }
}
