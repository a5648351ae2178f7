package io.rediacc.gpu.agent.cdi;

import io.rediacc.gpu.agent.detect.DeviceCards;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.cdi.CdiSpec;
import io.rediacc.gpu.contracts.cdi.CdiSpecDirectory;
import io.rediacc.gpu.contracts.events.MachineInventory.CdiDeviceInfo;
import io.rediacc.gpu.contracts.events.MachineInventory.Gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads the machine's CDI spec directory back with the shared {@link CdiSpecDirectory} — what is
 * on disk, not what the agent meant to write, is what grants are validated against. A spec that
 * changes while it is read (another writer, e.g. nvidia-cdi-refresh) is read again, so a published
 * inventory never mixes two versions of a file.
 */
public final class SpecReadBack {

    /** Attempts before the agent gives up waiting for the directory to hold still. */
    static final int MAX_READS = 5;

    /** The grantable devices (sorted by name) and what the loader refused. */
    public record Result(List<CdiDeviceInfo> devices, List<String> problems) {
    }

    private SpecReadBack() {
    }

    /**
     * Reads the spec directory and places each device on the cards it reaches ({@link DeviceCards}),
     * with {@code gpus} the NVIDIA cards nvidia-smi reported (for names by index and UUID).
     */
    public static Result read(HostRoot host, List<Gpu> gpus) {
        CdiSpecDirectory.Contents contents = CdiSpecDirectory.load(host.path(HostRoot.CDI_DIR));
        List<String> extra = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            CdiSpecDirectory.Contents again = CdiSpecDirectory.load(host.path(HostRoot.CDI_DIR));
            if (fingerprint(again).equals(fingerprint(contents))) {
                break;
            }
            contents = again;
            if (attempt >= MAX_READS) {
                extra.add(HostRoot.CDI_DIR + ": specs kept changing while being read (" + MAX_READS
                        + " reads); published the last read");
                break;
            }
            try {
                Thread.sleep(50L * attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        List<CdiDeviceInfo> devices = new ArrayList<>();
        contents.devices().forEach((name, resolved) -> devices.add(new CdiDeviceInfo(name, resolved.deviceNodes(),
                host.hostPath(java.nio.file.Path.of(resolved.spec().source())), resolved.spec().digest())));
        List<String> problems = new ArrayList<>();
        List<CdiDeviceInfo> placed = DeviceCards.read(host, gpus).annotate(devices);
        for (String p : contents.problems()) {
            problems.add(host.toHostPaths(p));
        }
        problems.addAll(extra);
        return new Result(placed, problems);
    }

    private static List<String> fingerprint(CdiSpecDirectory.Contents c) {
        List<String> f = new ArrayList<>();
        for (CdiSpec s : c.specs()) {
            f.add(s.source() + "=" + s.digest());
        }
        f.addAll(c.problems());
        return f;
    }
}
