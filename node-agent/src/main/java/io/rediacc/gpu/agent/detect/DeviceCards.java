package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.events.MachineInventory.CdiDeviceInfo;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which physical cards (PCI addresses) each CDI device reaches, read from the machine rather than
 * guessed from what a spec happens to list: a DRM node's card from {@code /sys/class/drm/<node>/device},
 * an NVIDIA node's card from the driver's {@code /proc/driver/nvidia/gpus/<address>/information}
 * ({@code Device Minor}: the minor is not necessarily the index), and an NVIDIA name's card from
 * nvidia-smi's list (index, UUID, a MIG slice's parent index, {@code all}). Exclusive grants reserve
 * these addresses, so {@code nvidia.com/gpu=0}, its UUID name, {@code all} and
 * {@code rediacc.io/dri=renderD128} of the same card conflict whether or not one spec device lists
 * both kinds of node.
 */
public final class DeviceCards {

    static final String NVIDIA_PROC_GPUS = "/proc/driver/nvidia/gpus";
    private static final String NVIDIA_KIND = "nvidia.com/gpu";
    private static final Pattern DRM_NODE = Pattern.compile("(card|renderD)\\d+");
    private static final Pattern DEVICE_MINOR = Pattern.compile("(?m)^Device Minor:\\s*(\\d+)\\s*$");
    private static final Pattern INDEX = Pattern.compile("\\d+");
    private static final Pattern MIG_BY_INDEX = Pattern.compile("(\\d+):\\d+");

    private final Map<String, String> cardByNode;
    private final Map<Integer, String> nvidiaByIndex = new HashMap<>();
    private final Map<String, String> nvidiaByUuid = new HashMap<>();

    private DeviceCards(Map<String, String> cardByNode, List<Gpu> gpus) {
        this.cardByNode = cardByNode;
        for (Gpu gpu : gpus) {
            if (!GpuVendor.NVIDIA.inventoryName().equals(gpu.vendor())) {
                continue;
            }
            Optional<String> card = PciAddress.parse(gpu.pciBusId()).map(PciAddress::toString);
            if (card.isPresent()) {
                nvidiaByIndex.put(gpu.index(), card.get());
                if (gpu.uuid() != null) {
                    nvidiaByUuid.put(gpu.uuid().toLowerCase(Locale.ROOT), card.get());
                }
            }
        }
    }

    /** Reads the node-to-card map of the machine now; {@code gpus} is what detection (nvidia-smi) found. */
    public static DeviceCards read(HostRoot host, List<Gpu> gpus) {
        Map<String, String> byNode = new HashMap<>();
        try (Stream<Path> entries = Files.list(host.path(HostRoot.DRM_CLASS))) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (DRM_NODE.matcher(name).matches()) {
                    RenderNodes.pciAddress(entry.resolve("device"))
                            .ifPresent(card -> byNode.put(HostRoot.DRI_DIR + "/" + name, card));
                }
            }
        } catch (IOException e) {
            // no DRM class: no DRM nodes to place
        }
        try (Stream<Path> entries = Files.list(host.path(NVIDIA_PROC_GPUS))) {
            for (Path entry : entries.toList()) {
                Optional<String> card = PciAddress.parse(entry.getFileName().toString()).map(PciAddress::toString);
                Optional<String> info = HostRoot.readTrimmed(entry.resolve("information"));
                if (card.isPresent() && info.isPresent()) {
                    Matcher m = DEVICE_MINOR.matcher(info.get());
                    if (m.find()) {
                        byNode.put("/dev/nvidia" + m.group(1), card.get());
                    }
                }
            }
        } catch (IOException e) {
            // no NVIDIA driver loaded: no NVIDIA nodes to place
        }
        return new DeviceCards(byNode, gpus == null ? List.of() : gpus);
    }

    /** The devices with {@link CdiDeviceInfo#cards()} filled in. */
    public List<CdiDeviceInfo> annotate(List<CdiDeviceInfo> devices) {
        List<CdiDeviceInfo> out = new ArrayList<>(devices.size());
        for (CdiDeviceInfo d : devices) {
            out.add(d.withCards(cardsOf(d.name(), d.deviceNodes())));
        }
        return out;
    }

    /** The sorted PCI addresses one device reaches: by its nodes, and for an NVIDIA name by the name too. */
    List<String> cardsOf(String name, List<String> nodes) {
        TreeSet<String> cards = new TreeSet<>();
        for (String node : nodes) {
            String card = cardByNode.get(node);
            if (card != null) {
                cards.add(card);
            }
        }
        if (CdiName.isValid(name)) {
            CdiName cdi = CdiName.parse(name);
            if (NVIDIA_KIND.equals(cdi.kind())) {
                cards.addAll(nvidiaCardsByName(cdi.device()));
            }
        }
        return List.copyOf(cards);
    }

    private List<String> nvidiaCardsByName(String device) {
        if (device.equals("all")) {
            return List.copyOf(nvidiaByIndex.values());
        }
        Matcher mig = MIG_BY_INDEX.matcher(device);
        String index = INDEX.matcher(device).matches() ? device : mig.matches() ? mig.group(1) : null;
        if (index != null) {
            try {
                String card = nvidiaByIndex.get(Integer.parseInt(index));
                return card == null ? List.of() : List.of(card);
            } catch (NumberFormatException e) {
                return List.of();
            }
        }
        String card = nvidiaByUuid.get(device.toLowerCase(Locale.ROOT));
        return card == null ? List.of() : List.of(card);
    }
}
