package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.machine.GateGrantCopies;
import io.rediacc.gpu.agent.machine.GrantGuard;
import picocli.CommandLine.Option;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/** Which CDI names setup must not remove, for setup and prepare alike ({@code @Mixin}): one guard, every door. */
public class GuardOptions {

    @Option(names = "--guard-grant", paramLabel = "<cdi-name>",
            description = "A CDI name that holds a grant on this machine (repeatable): setup refuses, and changes nothing, "
                    + "when it would remove one; rdc machine setup passes every name grant-service holds. Without it, the "
                    + "names docker-gate's verified copy of this machine's grants holds are guarded (a copy that does not "
                    + "verify guards every name)")
    List<String> guarded = new ArrayList<>();

    @Option(names = "--require-grant-copy",
            description = "The grants could not be read elsewhere (rdc machine setup passes it when grant-service does not "
                    + "answer): without docker-gate's copy of them, setup removes no CDI name")
    boolean copyRequired;

    @Option(names = "--force", description = "Remove guarded names anyway; their grants become orphaned")
    boolean force;

    /** The guard for this run: the names given, else the gate's copies on the machine (read now). */
    GrantGuard guard(AgentSettings settings) {
        if (!guarded.isEmpty()) {
            return new GrantGuard(new HashSet<>(guarded), force);
        }
        return GateGrantCopies.guard(settings, force, copyRequired, Instant.now());
    }
}
