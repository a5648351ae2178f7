package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.inventory.InventoryAssembler;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.standin.machine.FixtureRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code node-agent prepare} (what {@code rdc machine setup} runs) never orphans a grant in silence:
 * a setup that would remove a granted name is undone and refused, {@code --force} goes ahead and says
 * which grants it orphaned, and the step line says {@code changed} whenever a file setup owns changed.
 */
class SetupGuardsGrantsTest {

    @TempDir
    Path tmp;

    private final MachinePrepare prepare = new MachinePrepare(new SetupService(new InventoryAssembler("test", Clock.systemUTC())));
    private final List<String> lines = new ArrayList<>();
    private final List<String> notices = new ArrayList<>();

    private MachinePrepare.Result prepare(FixtureRoot f, ToolkitPolicy policy, GrantGuard guard) throws IOException {
        lines.clear();
        notices.clear();
        return prepare.run(AgentSettings.forRoot(f.root(), f.searchPath(), null), policy, guard,
                step -> lines.add(step.line()), notices::add);
    }

    private String setupLine() {
        return lines.stream().filter(l -> l.startsWith("node-agent setup: ")).findFirst().orElseThrow();
    }

    @Test
    void aSetupThatWouldRemoveAGrantedNameIsRefusedAndChangesNothing() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).build();
        prepare(f, ToolkitPolicy.AUTO, GrantGuard.NONE);
        byte[] spec = Files.readAllBytes(f.path(HostRoot.NVIDIA_SPEC));
        byte[] inventory = Files.readAllBytes(f.path(HostRoot.INVENTORY));
        byte[] dropIn = Files.readAllBytes(f.path(HostRoot.CDI_REFRESH_DROP_IN));

        MachinePrepare.Result r = prepare(f, ToolkitPolicy.NEVER,
                new GrantGuard(Set.of("nvidia.com/gpu=0", "nvidia.com/gpu=all", "rediacc.io/dri=renderD128"), false));

        assertThat(r.anyBad()).isTrue();
        assertThat(setupLine()).startsWith("node-agent setup: refused - it would remove CDI device(s) that hold grants: "
                + "nvidia.com/gpu=0, nvidia.com/gpu=all; nothing was changed").contains("--force");
        assertThat(notices).containsExactly("@would-orphan nvidia.com/gpu=0", "@would-orphan nvidia.com/gpu=all");
        assertThat(f.path(HostRoot.NVIDIA_SPEC)).hasBinaryContent(spec);
        assertThat(f.path(HostRoot.INVENTORY)).hasBinaryContent(inventory);
        assertThat(f.path(HostRoot.CDI_REFRESH_DROP_IN)).hasBinaryContent(dropIn);
        assertThat(r.inventory().cdiDevices()).extracting(d -> d.name()).contains("nvidia.com/gpu=0");
    }

    @Test
    void forceRemovesTheNamesAndSaysWhichGrantsItOrphaned() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).build();
        prepare(f, ToolkitPolicy.AUTO, GrantGuard.NONE);

        prepare(f, ToolkitPolicy.NEVER, new GrantGuard(Set.of("nvidia.com/gpu=0"), true));

        assertThat(f.path(HostRoot.NVIDIA_SPEC)).doesNotExist();
        assertThat(notices).containsExactly("@orphaned nvidia.com/gpu=0");
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("grants: changed - orphaned the grants of nvidia.com/gpu=0"));
        assertThat(setupLine()).startsWith("node-agent setup: changed - ").contains("removed /etc/cdi/nvidia.yaml");
    }

    @Test
    void unchangedIsSaidOnlyWhenNoFileSetupOwnsChanged() throws IOException {
        FixtureRoot f = FixtureRoot.builder(tmp).nvidia(1).build();
        prepare(f, ToolkitPolicy.AUTO, GrantGuard.NONE);
        assertThat(setupLine()).startsWith("node-agent setup: changed - ").contains("wrote /etc/cdi/nvidia.yaml");

        prepare(f, ToolkitPolicy.AUTO, GrantGuard.NONE);
        assertThat(setupLine()).startsWith("node-agent setup: unchanged - ");

        // the spec vanishes between two setups (deleted by hand, a package purge): setup puts it back and says so
        Files.delete(f.path(HostRoot.NVIDIA_SPEC));
        prepare(f, ToolkitPolicy.AUTO, GrantGuard.NONE);
        assertThat(setupLine()).startsWith("node-agent setup: changed - ").contains("wrote /etc/cdi/nvidia.yaml");

        prepare(f, ToolkitPolicy.NEVER, GrantGuard.NONE);
        assertThat(setupLine()).startsWith("node-agent setup: changed - ").contains("removed /etc/cdi/nvidia.yaml");

        prepare(f, ToolkitPolicy.NEVER, GrantGuard.NONE);
        assertThat(setupLine()).startsWith("node-agent setup: unchanged - ");
    }
}
