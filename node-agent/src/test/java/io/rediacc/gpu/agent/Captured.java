package io.rediacc.gpu.agent;

import io.rediacc.gpu.standin.machine.AmdKfdNode;
import io.rediacc.gpu.standin.machine.NvidiaCard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The real captures in the repository's fixtures/ (see its README for provenance), as the tests use them. */
public final class Captured {

    private Captured() {
    }

    public static Path dir() {
        // the repository's copy of the shared captures (fixtures/, provenance in its README)
        Path p = Path.of(System.getProperty("fixtures.dir", "../fixtures"));
        return p.toAbsolutePath().normalize();
    }

    public static String read(String name) {
        try {
            return Files.readString(dir().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException("missing fixture " + name + " in " + dir(), e);
        }
    }

    /** The device names of the captured 8-GPU host, in nvidia-ctk's order: "0", GPU-…, "1", …, "all". */
    public static List<String> eightGpuDeviceNames() {
        List<String> names = new ArrayList<>();
        for (String line : read("nvidia-ctk-cdi-generate-device-names-8gpu.txt").split("\\R")) {
            String l = line.trim();
            if (l.startsWith("name:")) {
                names.add(l.substring(5).trim().replace("\"", ""));
            }
        }
        return names;
    }

    /**
     * The captured host's 8 GPUs for the stand-in nvidia-smi. Only the UUIDs are captured; model,
     * driver, memory and bus ids are illustrative (no capture of the agent's exact query exists).
     */
    public static List<NvidiaCard> eightGpus() {
        List<String> names = eightGpuDeviceNames();
        List<NvidiaCard> cards = new ArrayList<>();
        for (String n : names) {
            if (n.startsWith("GPU-")) {
                int index = cards.size();
                cards.add(new NvidiaCard(index, n, "NVIDIA A100-SXM4-80GB", "550.127.05", 81920, NvidiaCard.busId(index), null));
            }
        }
        return cards;
    }

    /** The MI210 host's KFD topology: the captured CPU node (as nodes 0 and 1, like the source host) and GPU node 2. */
    public static List<AmdKfdNode> mi210Topology() {
        String cpu = read("amd-kfd-topology-mi210-node0-cpu-properties.txt");
        return List.of(new AmdKfdNode(0, cpu), new AmdKfdNode(1, cpu),
                new AmdKfdNode(2, read("amd-kfd-topology-mi210-node2-properties.txt")));
    }
}
