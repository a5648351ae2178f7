package io.rediacc.gpu.contracts.events;

import java.time.Instant;
import java.util.List;

/**
 * A machine's complete inventory: what node-agent writes to {@code /etc/rediacc/gpu/inventory.json}
 * and publishes on {@link Topics#INVENTORY} (key = machine). A machine without GPUs has empty lists.
 *
 * @param platform           {@code local} or {@code wsl}
 * @param cdiDevices         every grantable device, as read back from the machine's CDI spec directory
 * @param persistencedSocket the nvidia-persistenced socket when that daemon runs, else absent
 * @param repos              the repos on the machine (from the repos manifest the gate serves)
 * @param specProblems       spec files or devices the CDI loader refused, with the reason
 * @param setupFile          what setup wrote to {@code inventory.json}, as the running agent read it
 *                           (absent in the file itself, and when setup has not run)
 * @param generatedAt        when this record was put together: setup's time in the file, the
 *                           publication (heartbeat) time on the topic; {@code setupFile.generatedAt}
 *                           is setup's time there
 */
public record MachineInventory(
        int schemaVersion,
        String machine,
        String platform,
        String agentVersion,
        Instant generatedAt,
        List<Gpu> gpus,
        List<CdiDeviceInfo> cdiDevices,
        ToolkitState toolkit,
        String persistencedSocket,
        List<RepoInfo> repos,
        List<String> specProblems,
        SetupFile setupFile) {

    public static final int SCHEMA_VERSION = 1;
    /** Largest {@code inventory.json} carried in {@link SetupFile#content()}: the record must stay far below Kafka's 1 MiB. */
    public static final int MAX_SETUP_FILE_BYTES = 256 * 1024;

    /** A record without {@link SetupFile} (setup's own file, or an agent that has none to send). */
    public MachineInventory(int schemaVersion, String machine, String platform, String agentVersion, Instant generatedAt,
                            List<Gpu> gpus, List<CdiDeviceInfo> cdiDevices, ToolkitState toolkit,
                            String persistencedSocket, List<RepoInfo> repos, List<String> specProblems) {
        this(schemaVersion, machine, platform, agentVersion, generatedAt, gpus, cdiDevices, toolkit, persistencedSocket,
                repos, specProblems, null);
    }

    /**
     * {@code /etc/rediacc/gpu/inventory.json} as setup wrote it.
     *
     * @param generatedAt setup's {@code generatedAt}: the age of the inventory is measured from it
     * @param sha256      hex SHA-256 of the file's bytes
     * @param content     the file's bytes as UTF-8 text, unchanged (absent when the file is larger than
     *                    {@link #MAX_SETUP_FILE_BYTES}; {@code sha256} and {@code bytes} still say what it was)
     * @param bytes       the file's size
     */
    public record SetupFile(Instant generatedAt, String sha256, String content, long bytes) {
    }
    public static final String PLATFORM_LOCAL = "local";
    public static final String PLATFORM_WSL = "wsl";

    public MachineInventory {
        gpus = gpus == null ? List.of() : List.copyOf(gpus);
        cdiDevices = cdiDevices == null ? List.of() : List.copyOf(cdiDevices);
        repos = repos == null ? List.of() : List.copyOf(repos);
        specProblems = specProblems == null ? List.of() : List.copyOf(specProblems);
    }

    /**
     * One GPU.
     *
     * @param vendor     {@code nvidia}, {@code amd}, {@code intel} or {@code unknown}
     * @param renderNode {@code /dev/dri/renderD<N>} of the card, when it has one
     * @param migMode    {@code Enabled}/{@code Disabled} for NVIDIA cards that report it
     */
    public record Gpu(int index, String vendor, String name, String uuid, String pciBusId, String driverVersion,
                      Long memoryMiB, String renderNode, String migMode) {
    }

    /**
     * One grantable CDI device: its qualified name, its device nodes, the spec that defines it and the
     * physical cards it reaches.
     *
     * @param cards the PCI addresses (sysfs form, {@code 0000:18:00.0}) of the cards the device reaches,
     *              sorted, as node-agent read them from sysfs: from {@code /dev/nvidiaN} (by the driver's
     *              device minor), {@code /dev/dri/cardN} and {@code renderDN}, and for NVIDIA names from
     *              the index, UUID, MIG parent or {@code all} — whatever nodes the spec lists. Empty when
     *              the machine cannot tell (WSL's {@code /dev/dxg}, or an agent older than this field).
     *              Exclusive grants reserve these cards.
     */
    public record CdiDeviceInfo(String name, List<String> deviceNodes, String specFile, String specDigest,
                                List<String> cards) {
        public CdiDeviceInfo {
            deviceNodes = deviceNodes == null ? List.of() : List.copyOf(deviceNodes);
            cards = cards == null ? List.of() : List.copyOf(cards);
        }

        /** A device whose cards are not known (yet). */
        public CdiDeviceInfo(String name, List<String> deviceNodes, String specFile, String specDigest) {
            this(name, deviceNodes, specFile, specDigest, List.of());
        }

        public CdiDeviceInfo withCards(List<String> reached) {
            return new CdiDeviceInfo(name, deviceNodes, specFile, specDigest, reached);
        }
    }

    /**
     * The NVIDIA Container Toolkit on the machine.
     *
     * @param state {@code installed}, {@code not-installed}, {@code disabled} (--install-nvidia-toolkit=false) or {@code failed}
     */
    public record ToolkitState(String state, String version, String nvidiaSpec, String detail) {
    }
}
