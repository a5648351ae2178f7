package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.HostRoot;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Reads the KFD topology ({@code /sys/class/kfd/kfd/topology/nodes/<n>/properties}, lines of
 * {@code key value}). CPU nodes ({@code drm_render_minor 0}, no SIMDs) are skipped; GPU nodes come
 * back in node order, which is the order ROCm numbers the cards in.
 */
public final class KfdTopology {

    private KfdTopology() {
    }

    public static List<KfdGpu> scan(HostRoot host) {
        Path nodes = host.path(HostRoot.KFD_TOPOLOGY_NODES);
        List<KfdGpu> gpus = new ArrayList<>();
        try (Stream<Path> entries = Files.list(nodes)) {
            List<Path> numbered = entries.filter(p -> p.getFileName().toString().matches("\\d+"))
                    .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getFileName().toString())))
                    .toList();
            for (Path node : numbered) {
                Map<String, String> props = properties(node.resolve("properties"));
                int minor = (int) number(props, "drm_render_minor");
                if (minor <= 0 || number(props, "simd_count") == 0) {
                    continue; // a CPU node
                }
                gpus.add(new KfdGpu(Integer.parseInt(node.getFileName().toString()), minor,
                        (int) number(props, "vendor_id"), (int) number(props, "device_id"),
                        PciAddress.fromKfd(number(props, "domain"), number(props, "location_id")),
                        number(props, "unique_id"), (int) number(props, "gfx_target_version")));
            }
        } catch (IOException e) {
            return List.of(); // no KFD topology
        }
        return gpus;
    }

    static Map<String, String> properties(Path file) {
        Map<String, String> props = new HashMap<>();
        HostRoot.readTrimmed(file).ifPresent(text -> text.lines().forEach(line -> {
            String[] kv = line.trim().split("\\s+", 2);
            if (kv.length == 2) {
                props.put(kv[0], kv[1]);
            }
        }));
        return props;
    }

    /** Unsigned 64-bit values (unique_id, hive_id) exceed a signed long; keep their bits. */
    private static long number(Map<String, String> props, String key) {
        String v = props.get(key);
        if (v == null) {
            return 0;
        }
        try {
            return new BigInteger(v).longValue();
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
