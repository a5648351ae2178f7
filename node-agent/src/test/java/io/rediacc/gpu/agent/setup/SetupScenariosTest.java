package io.rediacc.gpu.agent.setup;

import io.rediacc.gpu.agent.Captured;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.standin.machine.FixtureRoot;
import io.rediacc.gpu.standin.machine.NvidiaCard;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.inventory.InventoryAssembler;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.cdi.CdiSpec;
import io.rediacc.gpu.contracts.cdi.CdiSpecParser;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.MachineInventory.CdiDeviceInfo;
import io.rediacc.gpu.contracts.events.RepoInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code node-agent setup} against simulated machines built from the captured fixtures. */
class SetupScenariosTest {

    @TempDir
    Path tmp;

    private final SetupService setup = new SetupService(new InventoryAssembler("test", Clock.systemUTC()));

    private SetupReport setup(FixtureRoot f, ToolkitPolicy policy) throws IOException {
        return setup.run(AgentSettings.forRoot(f.root(), f.searchPath(), null), policy);
    }

    private static List<String> names(MachineInventory inv) {
        return inv.cdiDevices().stream().map(CdiDeviceInfo::name).toList();
    }

    private static CdiDeviceInfo device(MachineInventory inv, String name) {
        return inv.cdiDevices().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
    }

    private static MachineInventory onDisk(FixtureRoot f) throws IOException {
        return EventJson.fromBytes(Files.readAllBytes(f.path(HostRoot.INVENTORY)), MachineInventory.class);
    }

    @Test
    void machineWithoutGpuGetsAnInventoryWithEmptyListsAndNoToolkit() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("plain-1").build();

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        MachineInventory inv = r.inventory();
        assertThat(inv.machine()).isEqualTo("plain-1");
        assertThat(inv.platform()).isEqualTo("local");
        assertThat(inv.gpus()).isEmpty();
        assertThat(inv.cdiDevices()).isEmpty();
        assertThat(inv.toolkit().state()).isEqualTo("not-installed");
        assertThat(inv.toolkit().nvidiaSpec()).isNull();
        assertThat(r.failed()).isFalse();
        assertThat(f.calls("apt-get")).isEmpty();
        assertThat(f.calls("nvidia-ctk")).isEmpty();
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
        assertThat(f.path(HostRoot.DRI_SPEC)).doesNotExist();
        assertThat(f.path(HostRoot.AMD_SPEC)).doesNotExist();
        assertThat(f.path(HostRoot.CDI_REFRESH_DROP_IN)).doesNotExist();
        String json = Files.readString(f.path(HostRoot.INVENTORY));
        assertThat(json).contains("\"gpus\" : [ ]", "\"cdiDevices\" : [ ]", "\"repos\" : [ ]");
        assertThat(onDisk(f)).isEqualTo(inv);
    }

    @Test
    void eightNvidiaGpusInstallTheToolkitAndPublishEveryCapturedName() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("dgx-1").nvidia(Captured.eightGpus()).build();

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.failed()).isFalse();
        assertThat(f.calls("apt-get")).containsExactly("install -y nvidia-container-toolkit");
        assertThat(f.calls("nvidia-ctk")).contains("cdi generate --output=" + f.path("/etc/cdi/nvidia.yaml"));
        assertThat(f.calls("nvidia-ctk")).noneMatch(c -> c.contains("--mode"));
        assertThat(Files.readString(f.path(HostRoot.CDI_REFRESH_DROP_IN)))
                .contains("[Service]", "Environment=NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml");
        assertThat(f.calls("systemctl")).containsExactly("daemon-reload");

        MachineInventory inv = r.inventory();
        List<String> expected = new ArrayList<>();
        Captured.eightGpuDeviceNames().forEach(n -> expected.add("nvidia.com/gpu=" + n));
        for (int minor = 128; minor < 136; minor++) {
            expected.add("rediacc.io/dri=renderD" + minor);
        }
        assertThat(names(inv)).containsExactlyInAnyOrderElementsOf(expected)
                .contains("nvidia.com/gpu=all", "nvidia.com/gpu=0", "nvidia.com/gpu=7",
                        "nvidia.com/gpu=GPU-b1028956-cfa2-0990-bf4a-5da9abb51763");
        // as nvidia-ctk on a host with nvidia-drm loaded: the card's DRM nodes follow its /dev/nvidiaN
        assertThat(device(inv, "nvidia.com/gpu=3").deviceNodes()).containsExactly("/dev/nvidia3", "/dev/dri/card3",
                "/dev/dri/renderD131", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
        // every name placed on the card(s) it reaches, by PCI address
        String card3 = inv.gpus().get(3).pciBusId();
        assertThat(device(inv, "nvidia.com/gpu=3").cards()).containsExactly(card3);
        assertThat(device(inv, "nvidia.com/gpu=" + inv.gpus().get(3).uuid()).cards()).containsExactly(card3);
        assertThat(device(inv, "rediacc.io/dri=renderD131").cards()).containsExactly(card3);
        assertThat(device(inv, "nvidia.com/gpu=all").cards()).hasSize(8).contains(card3);
        assertThat(device(inv, "nvidia.com/gpu=all").deviceNodes()).contains("/dev/nvidia0", "/dev/nvidia7");
        assertThat(device(inv, "nvidia.com/gpu=0").specFile()).isEqualTo("/etc/cdi/nvidia.yaml");
        assertThat(device(inv, "nvidia.com/gpu=0").specDigest()).startsWith("sha256:");

        assertThat(inv.gpus()).hasSize(8);
        MachineInventory.Gpu g7 = inv.gpus().get(7);
        assertThat(g7.vendor()).isEqualTo("nvidia");
        assertThat(g7.uuid()).isEqualTo("GPU-b1028956-cfa2-0990-bf4a-5da9abb51763");
        assertThat(g7.driverVersion()).isEqualTo("550.127.05");
        assertThat(g7.memoryMiB()).isEqualTo(81920L);
        assertThat(g7.pciBusId()).isEqualTo("0000:88:00.0");
        assertThat(g7.renderNode()).isEqualTo("/dev/dri/renderD135");
        assertThat(inv.toolkit()).isEqualTo(new MachineInventory.ToolkitState("installed", FixtureRoot.NVIDIA_CTK_VERSION,
                "/etc/cdi/nvidia.yaml", "nvidia-container-toolkit 1.17.8 has no nvidia-cdi-refresh units (they come with 1.18.0):"
                + " the spec follows driver updates only when setup runs again; upgrade the toolkit"));
        assertThat(inv.specProblems()).isEmpty();

        // the spec names the fixture's nodes, real character nodes with the kernel's numbers (as root), so a
        // real dockerd injects them; the hook and the library it names exist under the root too
        CdiSpec nvidia = CdiSpecParser.parse("nvidia", Files.readAllBytes(f.path(HostRoot.NVIDIA_SPEC)));
        assertThat(nvidia.devices().stream().filter(d -> d.name().equals("3")).findFirst().orElseThrow()
                .containerEdits().deviceNodes()).extracting(n -> n.hostPath()).containsExactly(
                        f.path("/dev/nvidia3").toString(), f.path("/dev/dri/card3").toString(),
                        f.path("/dev/dri/renderD131").toString());
        assertThat(nvidia.containerEdits().hooks()).allSatisfy(h -> assertThat(Path.of(h.path())).isExecutable());
        assertThat(nvidia.containerEdits().mounts()).allSatisfy(m -> assertThat(Path.of(m.hostPath())).exists());
        if ("root".equals(System.getProperty("user.name"))) {
            assertThat((int) Files.getAttribute(f.path("/dev/nvidia3"), "unix:mode") & 0170000).isEqualTo(0020000);
            assertThat((long) Files.getAttribute(f.path("/dev/nvidia3"), "unix:rdev")).isEqualTo(195L << 8 | 3);
            assertThat((long) Files.getAttribute(f.path("/dev/dri/renderD130"), "unix:rdev")).isEqualTo(226L << 8 | 130);
        }
    }

    @Test
    void wslMachineGeneratesInWslModeAndHasOnlyAll() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("laptop-wsl").wsl(true)
                .nvidia(List.of(new NvidiaCard(0, "GPU-1b724e78-eef5-4163-d43c-e4da15d41176",
                        "NVIDIA GeForce RTX 4070 Laptop GPU", "560.94", 8188, "00000000:01:00.0", null)))
                .wslSpec(Captured.read("nvidia-ctk-generate-wsl-mode.yaml"))
                .build();

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(f.calls("nvidia-ctk")).contains("cdi generate --output=" + f.path("/etc/cdi/nvidia.yaml") + " --mode=wsl");
        MachineInventory inv = r.inventory();
        assertThat(inv.platform()).isEqualTo("wsl");
        assertThat(names(inv)).containsExactly("nvidia.com/gpu=all");
        assertThat(device(inv, "nvidia.com/gpu=all").deviceNodes()).containsExactly("/dev/dxg");
        assertThat(inv.gpus()).singleElement().satisfies(g -> {
            assertThat(g.name()).isEqualTo("NVIDIA GeForce RTX 4070 Laptop GPU");
            assertThat(g.renderNode()).isNull();
        });
        // the refresh service is a local-machine affair
        assertThat(f.path(HostRoot.CDI_REFRESH_DROP_IN)).doesNotExist();
        assertThat(f.calls("systemctl")).isEmpty();
    }

    @Test
    void amdMi210FromTheCapturedTopologyGetsKfdSpecsValidForTheSharedParser() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("mi210-1").kfdNodes(Captured.mi210Topology()).build();

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        MachineInventory inv = r.inventory();
        assertThat(names(inv)).containsExactly("rediacc.io/amd=all", "rediacc.io/amd=gpu0", "rediacc.io/dri=renderD128");
        assertThat(device(inv, "rediacc.io/amd=gpu0").deviceNodes()).containsExactly("/dev/kfd", "/dev/dri/renderD128");
        assertThat(device(inv, "rediacc.io/amd=all").deviceNodes()).containsExactly("/dev/kfd", "/dev/dri/renderD128");
        assertThat(device(inv, "rediacc.io/dri=renderD128").deviceNodes()).containsExactly("/dev/dri/renderD128");
        assertThat(device(inv, "rediacc.io/amd=gpu0").specFile()).isEqualTo("/etc/cdi/rediacc.io-amd.yaml");

        for (String spec : List.of(HostRoot.AMD_SPEC, HostRoot.DRI_SPEC)) {
            CdiSpec parsed = CdiSpecParser.parse(spec, Files.readAllBytes(f.path(spec)));
            // device nodes only and names starting with a letter: 0.3.0 on a real machine; under a fixture root
            // each node also names its hostPath (the fixture's node, for a real dockerd), which needs 0.5.0
            assertThat(parsed.cdiVersion()).isEqualTo("0.5.0");
            assertThat(parsed.devices()).allSatisfy(d -> assertThat(d.containerEdits().deviceNodes()).allSatisfy(n ->
                    assertThat(n.hostPath()).isEqualTo(f.path(n.path()).toString())));
        }
        assertThat(inv.gpus()).singleElement().satisfies(g -> {
            assertThat(g.vendor()).isEqualTo("amd");
            assertThat(g.index()).isZero();
            assertThat(g.pciBusId()).isEqualTo("0000:63:00.0"); // location_id 25344 = 0x6300
            assertThat(g.renderNode()).isEqualTo("/dev/dri/renderD128");
            assertThat(g.name()).isEqualTo("AMD GPU 0x740f (gfx90a)");
            assertThat(g.uuid()).isEqualTo("GPU-" + String.format("%016x", 1801979520617338022L));
        });
        assertThat(inv.toolkit().state()).isEqualTo("not-installed");
        assertThat(f.calls("apt-get")).isEmpty();
    }

    @Test
    void toolkitFalseWithAnNvidiaGpuInstallsNothingAndWritesNoNvidiaSpec() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(2).build();

        SetupReport r = setup(f, ToolkitPolicy.NEVER);

        assertThat(f.calls("apt-get")).isEmpty();
        assertThat(f.calls("nvidia-ctk")).isEmpty();
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
        assertThat(f.path(HostRoot.CDI_REFRESH_DROP_IN)).doesNotExist();
        assertThat(names(r.inventory())).noneMatch(n -> n.startsWith("nvidia.com/"))
                .containsExactly("rediacc.io/dri=renderD128", "rediacc.io/dri=renderD129");
        assertThat(r.inventory().toolkit().state()).isEqualTo("disabled");
        assertThat(r.inventory().gpus()).hasSize(2);
        assertThat(r.failed()).isFalse();
    }

    @Test
    void toolkitFalseRemovesTheNvidiaSpecAnEarlierSetupGenerated() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).build();
        setup(f, ToolkitPolicy.AUTO);
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).exists();

        SetupReport r = setup(f, ToolkitPolicy.NEVER);

        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
        assertThat(f.path(HostRoot.CDI_REFRESH_DROP_IN)).doesNotExist();
        assertThat(f.calls("systemctl")).containsExactly("daemon-reload", "daemon-reload");
        assertThat(names(r.inventory())).containsExactly("rediacc.io/dri=renderD128");
    }

    @Test
    void anOperatorsOwnNvidiaSpecStaysUnderToolkitFalseAndIsPublished() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).nvidiaRenderNodes(false).build();
        Files.createDirectories(f.path(HostRoot.CDI_DIR));
        Files.writeString(f.path(HostRoot.NVIDIA_SPEC), """
                cdiVersion: 0.5.0
                kind: nvidia.com/gpu
                devices:
                  - name: "0"
                    containerEdits:
                      deviceNodes:
                        - path: /dev/nvidia0
                """);

        SetupReport r = setup(f, ToolkitPolicy.NEVER);

        assertThat(f.path(HostRoot.NVIDIA_SPEC)).exists();
        assertThat(names(r.inventory())).containsExactly("nvidia.com/gpu=0");
        assertThat(r.inventory().toolkit().nvidiaSpec()).isNull();
    }

    /**
     * A spec that lists only {@code /dev/nvidia0} for card 0 (no DRM nodes) still places the name on the
     * card its render node belongs to: the card comes from the driver's minor and sysfs, not from the
     * spec, so an exclusive grant of either name reserves the one physical card.
     */
    @Test
    void aNameIsPlacedOnItsPhysicalCardWhateverNodesItsSpecLists() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(2).build();
        Files.createDirectories(f.path(HostRoot.CDI_DIR));
        Files.writeString(f.path(HostRoot.NVIDIA_SPEC), """
                cdiVersion: 0.5.0
                kind: nvidia.com/gpu
                devices:
                  - name: "0"
                    containerEdits:
                      deviceNodes:
                        - path: /dev/nvidia0
                  - name: "1"
                    containerEdits:
                      deviceNodes:
                        - path: /dev/nvidia1
                """);

        MachineInventory inv = setup(f, ToolkitPolicy.NEVER).inventory();

        String card0 = inv.gpus().get(0).pciBusId();
        String card1 = inv.gpus().get(1).pciBusId();
        assertThat(card0).isNotEqualTo(card1);
        assertThat(device(inv, "nvidia.com/gpu=0").deviceNodes()).containsExactly("/dev/nvidia0");
        assertThat(device(inv, "nvidia.com/gpu=0").cards()).containsExactly(card0);
        assertThat(device(inv, "rediacc.io/dri=renderD128").cards()).containsExactly(card0);
        assertThat(device(inv, "nvidia.com/gpu=1").cards()).containsExactly(card1);
        assertThat(device(inv, "rediacc.io/dri=renderD129").cards()).containsExactly(card1);
        assertThat(onDisk(f)).isEqualTo(inv);
    }

    @Test
    void aDriverChangeFollowedBySetupRegeneratesTheNvidiaSpec() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(2).toolkitInstalled(true).build();
        MachineInventory before = setup(f, ToolkitPolicy.AUTO).inventory();
        String digestBefore = device(before, "nvidia.com/gpu=all").specDigest();

        f.replaceNvidia(f.nvidia().stream().map(c -> c.withDriver("560.35.03")).toList());
        MachineInventory after = setup(f, ToolkitPolicy.AUTO).inventory();

        assertThat(f.calls("nvidia-ctk").stream().filter(c -> c.startsWith("cdi generate"))).hasSize(2);
        assertThat(Files.readString(f.path(HostRoot.NVIDIA_SPEC))).contains("--host-driver-version=560.35.03")
                .doesNotContain("550.127.05");
        assertThat(device(after, "nvidia.com/gpu=all").specDigest()).isNotEqualTo(digestBefore);
        assertThat(after.gpus()).allSatisfy(g -> assertThat(g.driverVersion()).isEqualTo("560.35.03"));
        assertThat(onDisk(f)).isEqualTo(after);
        assertThat(f.calls("apt-get")).isEmpty(); // already installed
    }

    @Test
    void aSpecWhoseDevicesAreGoneIsRemoved() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).amd(1).build();
        setup(f, ToolkitPolicy.AUTO);
        assertThat(f.path(HostRoot.AMD_SPEC)).exists();
        assertThat(f.path(HostRoot.DRI_SPEC)).exists();

        // the card is taken out: no KFD, no render node
        Files.delete(f.path("/dev/kfd"));
        Files.delete(f.path("/dev/dri/renderD128"));
        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(f.path(HostRoot.AMD_SPEC)).doesNotExist();
        assertThat(f.path(HostRoot.DRI_SPEC)).doesNotExist();
        assertThat(r.inventory().cdiDevices()).isEmpty();
        assertThat(r.actions()).contains("removed /etc/cdi/rediacc.io-amd.yaml (its devices are gone)");
    }

    @Test
    void aFailedToolkitInstallIsReportedWithAFixAndTheInventoryIsStillWritten() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).build();
        f.installFails(true);

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.failed()).isTrue();
        // then NVIDIA's repository is added and the install tried once more
        assertThat(f.calls("apt-get")).containsExactly("install -y nvidia-container-toolkit", "update",
                "install -y nvidia-container-toolkit", "update", "install -y nvidia-container-toolkit");
        MachineInventory.ToolkitState t = r.inventory().toolkit();
        assertThat(t.state()).isEqualTo("failed");
        assertThat(t.detail()).contains("Unable to locate package", "add NVIDIA's package repository");
        assertThat(onDisk(f).gpus()).hasSize(1);
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
    }

    @Test
    void aFailedSpecGenerationKeepsThePreviousSpecAndSaysSo() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).toolkitInstalled(true).build();
        setup(f, ToolkitPolicy.AUTO);
        f.generateFails(true);

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.failed()).isTrue();
        assertThat(r.inventory().toolkit().state()).isEqualTo("failed");
        assertThat(r.inventory().toolkit().detail()).contains("failed to initialize NVML", "previous spec")
                .doesNotContain(f.root().toString());
        assertThat(names(r.inventory())).contains("nvidia.com/gpu=0");
    }

    @Test
    void toolkitTrueInstallsOnAMachineWithoutNvidiaGpuButGeneratesNoSpec() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).packageManager("dnf").build();

        SetupReport r = setup(f, ToolkitPolicy.ALWAYS);

        assertThat(f.calls("dnf")).containsExactly("install -y nvidia-container-toolkit");
        assertThat(f.calls("nvidia-ctk")).containsExactly("--version");
        assertThat(r.inventory().toolkit().state()).isEqualTo("installed");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
    }

    @Test
    void twoNvidiaAndOneAmdGpuAreAllGrantableUnderTheirOwnNames() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("mixed-1").nvidia(2).amd(1).persistenced(true).build();

        MachineInventory inv = setup(f, ToolkitPolicy.AUTO).inventory();

        assertThat(names(inv)).contains("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all",
                "rediacc.io/amd=gpu0", "rediacc.io/amd=all", "rediacc.io/dri=renderD128", "rediacc.io/dri=renderD129",
                "rediacc.io/dri=renderD130");
        assertThat(device(inv, "rediacc.io/amd=gpu0").deviceNodes()).containsExactly("/dev/kfd", "/dev/dri/renderD130");
        assertThat(inv.gpus()).extracting(MachineInventory.Gpu::vendor).containsExactly("nvidia", "nvidia", "amd");
        assertThat(inv.persistencedSocket()).isEqualTo("/run/nvidia-persistenced/socket");
    }

    @Test
    void reposAndTheMachineNameComeFromTheGatesManifest() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).hostname("host-name").build();
        f.writeReposManifest("""
                machine: gpu-box-7
                repos:
                  - name: web
                    guid: 3F2B8C1E-9D4A-4E57-8F0A-2C6D7E9B1A43
                    listen: unix:///run/rediacc/web/docker.sock
                    daemon: unix:///run/rediacc/web/daemon.sock
                  - name: web-fork
                    guid: 0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f
                    forkOf: 3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43
                    listen: unix:///run/rediacc/web-fork/docker.sock
                    daemon: unix:///run/rediacc/web-fork/daemon.sock
                    buildkitDeviceEntitlementDisabled: true
                """);

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.inventory().machine()).isEqualTo("gpu-box-7");
        assertThat(r.inventory().repos()).containsExactly(
                new RepoInfo("web", "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", null),
                new RepoInfo("web-fork", "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43"));
    }

    @Test
    void anInvalidSpecInEtcCdiIsReportedAndTheOthersStayGrantable() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).intel(1).build();
        Files.createDirectories(f.path(HostRoot.CDI_DIR));
        Files.writeString(f.path("/etc/cdi/broken.yaml"), "cdiVersion: 0.6.0\nkind: vendor.com/dev\ndevices: []\n");

        MachineInventory inv = setup(f, ToolkitPolicy.AUTO).inventory();

        assertThat(names(inv)).containsExactly("rediacc.io/dri=renderD128");
        assertThat(inv.specProblems()).singleElement().asString()
                .startsWith("/etc/cdi/broken.yaml: ").contains("non-empty list");
        assertThat(inv.gpus()).singleElement().satisfies(g -> assertThat(g.vendor()).isEqualTo("intel"));
    }

    @Test
    void migModeAndTheNvidiaPersistencedSocketAreRecorded() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).persistenced(true).toolkitInstalled(true)
                .nvidia(List.of(new NvidiaCard(0, "GPU-a4f34abc-7715-3560-dcea-7238b9611a45", "NVIDIA GH200 96GB HBM3",
                        "550.90.07", 97871, "00000009:01:00.0", "Enabled")))
                .build();

        MachineInventory inv = setup(f, ToolkitPolicy.AUTO).inventory();

        assertThat(inv.gpus()).singleElement().satisfies(g -> {
            assertThat(g.migMode()).isEqualTo("Enabled");
            assertThat(g.pciBusId()).isEqualTo("0009:01:00.0");
            assertThat(g.renderNode()).isEqualTo("/dev/dri/renderD128");
        });
        assertThat(inv.persistencedSocket()).isEqualTo("/run/nvidia-persistenced/socket");
    }

    @Test
    void anOperatorsRefreshEnvironmentFileThatRedirectsTheSpecIsPointedOut() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).toolkitInstalled(true).build();
        Files.createDirectories(f.path(HostRoot.CDI_REFRESH_ENV_FILE).getParent());
        Files.writeString(f.path(HostRoot.CDI_REFRESH_ENV_FILE), "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/nvidia.yaml\n");

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.inventory().toolkit().state()).isEqualTo("installed");
        assertThat(r.inventory().toolkit().detail()).contains(HostRoot.CDI_REFRESH_ENV_FILE, "/var/run/cdi/nvidia.yaml",
                "remove that line");
    }

    @Test
    void aSecondSetupWithNothingChangedRewritesNothingAndReloadsNothing() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).amd(1).toolkitInstalled(true).build();
        setup(f, ToolkitPolicy.AUTO);
        long driModified = Files.getLastModifiedTime(f.path(HostRoot.DRI_SPEC)).toMillis();

        SetupReport again = setup(f, ToolkitPolicy.AUTO);

        assertThat(again.actions()).containsExactly("generated /etc/cdi/nvidia.yaml", "wrote /etc/rediacc/gpu/inventory.json");
        assertThat(Files.getLastModifiedTime(f.path(HostRoot.DRI_SPEC)).toMillis()).isEqualTo(driModified);
        assertThat(f.calls("systemctl")).containsExactly("daemon-reload");
    }

    @Test
    void withoutAPackageManagerSetupSaysHowToInstallTheToolkitByHand() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).packageManager(null).build();

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.failed()).isTrue();
        assertThat(r.inventory().toolkit().state()).isEqualTo("failed");
        assertThat(r.inventory().toolkit().detail()).contains("no supported package manager", "install it by hand");
        assertThat(names(r.inventory())).containsExactly("rediacc.io/dri=renderD128");
    }

    @Test
    void toolkit118RefreshUnitsArePointedAtEtcCdiAndEnabledOnce() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).toolkitVersion("1.18.0").build();
        // an env file that would send the refreshed spec elsewhere: the drop-in's --output still wins
        Files.createDirectories(f.path(HostRoot.CDI_REFRESH_ENV_FILE).getParent());
        Files.writeString(f.path(HostRoot.CDI_REFRESH_ENV_FILE), "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/nvidia.yaml\n");

        SetupReport r = setup(f, ToolkitPolicy.AUTO);

        assertThat(r.failed()).isFalse();
        assertThat(f.path("/usr/lib/systemd/system/nvidia-cdi-refresh.service")).exists();
        assertThat(Files.readString(f.path(HostRoot.CDI_REFRESH_DROP_IN)))
                .contains("ExecStart=\nExecStart=" + f.bin().resolve("nvidia-ctk") + " cdi generate --output=/etc/cdi/nvidia.yaml");
        assertThat(f.calls("systemctl")).containsExactly("daemon-reload", "is-enabled --quiet nvidia-cdi-refresh.path",
                "enable --now nvidia-cdi-refresh.path nvidia-cdi-refresh.service");
        assertThat(r.actions()).contains("enabled nvidia-cdi-refresh.path and nvidia-cdi-refresh.service");
        assertThat(r.inventory().toolkit().detail()).doesNotContain("has no nvidia-cdi-refresh units").contains("--output wins");

        setup(f, ToolkitPolicy.AUTO);
        assertThat(f.calls("systemctl")).hasSize(4).last().isEqualTo("is-enabled --quiet nvidia-cdi-refresh.path");
    }

    @Test
    void wslRefreshNeedsToolkit1191() throws IOException {
        FixtureRoot old = FixtureRoot.builder(tmp.resolve("old")).nvidia(1).wsl(true).toolkitVersion("1.18.0").build();
        SetupReport r = setup(old, ToolkitPolicy.AUTO);
        assertThat(old.path(HostRoot.CDI_REFRESH_DROP_IN)).doesNotExist();
        assertThat(r.inventory().toolkit().detail()).contains("does not refresh the spec on WSL (1.19.1 and newer do)");

        FixtureRoot recent = FixtureRoot.builder(tmp.resolve("new")).nvidia(1).wsl(true).toolkitVersion("1.19.1").build();
        SetupReport n = setup(recent, ToolkitPolicy.AUTO);
        assertThat(recent.path(HostRoot.CDI_REFRESH_DROP_IN)).exists();
        assertThat(recent.calls("systemctl")).contains("enable --now nvidia-cdi-refresh.path nvidia-cdi-refresh.service");
        assertThat(n.inventory().toolkit().detail()).isNull();
    }

    @Test
    void anUnknownToolkitPackageGetsNvidiasRepositoryAsTheInstallGuideAddsIt() throws IOException {
        FixtureRoot apt = FixtureRoot.builder(tmp.resolve("apt")).nvidia(1).toolkitRepoMissing(true).build();
        SetupReport r = setup(apt, ToolkitPolicy.AUTO);
        assertThat(r.inventory().toolkit().state()).isEqualTo("installed");
        assertThat(Files.readString(apt.path("/etc/apt/sources.list.d/nvidia-container-toolkit.list"))).isEqualTo(
                "deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /\n");
        assertThat(apt.path("/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg")).exists();
        assertThat(apt.calls("curl")).containsExactly("-fsSL https://nvidia.github.io/libnvidia-container/gpgkey",
                "-fsSL https://nvidia.github.io/libnvidia-container/stable/deb/nvidia-container-toolkit.list");
        assertThat(apt.calls("apt-get")).containsExactly("install -y nvidia-container-toolkit", "update",
                "install -y nvidia-container-toolkit", "update", "install -y nvidia-container-toolkit");
        assertThat(r.actions()).contains("added NVIDIA's package repository (/etc/apt/sources.list.d/nvidia-container-toolkit.list)");

        FixtureRoot dnf = FixtureRoot.builder(tmp.resolve("dnf")).nvidia(1).packageManager("dnf").toolkitRepoMissing(true).build();
        SetupReport d = setup(dnf, ToolkitPolicy.AUTO);
        assertThat(d.inventory().toolkit().state()).isEqualTo("installed");
        assertThat(Files.readString(dnf.path("/etc/yum.repos.d/nvidia-container-toolkit.repo"))).contains("[nvidia-container-toolkit]");
        assertThat(dnf.calls("dnf")).containsExactly("install -y nvidia-container-toolkit", "install -y nvidia-container-toolkit");
    }
}
