package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What {@code node-agent prepare} prints on the machine, read line by line as it arrives: its step lines
 * go to the operator, its {@code @}-lines are kept for rdc (the inventory's timestamp, the repos, the
 * machine's own name, the granted names it would orphan or orphaned).
 */
final class PrepareOutput implements Consumer<String> {

    private final Consumer<String> progress;
    private Instant inventoryGeneratedAt;
    private Integer repos;
    private String reportedMachine;
    private final List<String> wouldOrphan = new ArrayList<>();
    private final List<String> orphaned = new ArrayList<>();

    /** @param progress where the step lines the operator reads go */
    PrepareOutput(Consumer<String> progress) {
        this.progress = progress;
    }

    @Override
    public void accept(String line) {
        if (line.startsWith("@inventory-generated-at ")) {
            inventoryGeneratedAt = Instant.parse(value(line));
        } else if (line.startsWith("@machine ")) {
            reportedMachine = value(line);
        } else if (line.startsWith("@repos ")) {
            repos = Integer.parseInt(value(line));
        } else if (line.startsWith("@would-orphan ")) {
            wouldOrphan.add(value(line));
        } else if (line.startsWith("@orphaned ")) {
            orphaned.add(value(line));
        } else if (!relayed(line)) {
            // said once already
        } else if (line.startsWith("@public-key ")) {
            // prepare's own machine-key step says it too; MachineKeyStep registered that key already
        } else {
            progress.accept(line);
        }
    }

    /**
     * Ends setup when prepare refused to orphan grants (exit 4, each grant with the revoke that frees it);
     * after {@code --force}, warns once per grant it orphaned.
     */
    void judgeGrants(GrantsAtRisk grants, Consumer<String> warn) {
        if (!wouldOrphan.isEmpty()) {
            throw new Failure(ExitCodes.CONFLICT, grants.refusal(wouldOrphan));
        }
        for (String line : grants.lines(orphaned)) {
            warn.accept("orphaned by --force: " + line);
        }
        // names grant-service did not list (it could not be read, or the machine's own copy held them)
        orphaned.stream().filter(n -> grants.grants().stream().noneMatch(g -> g.device().equals(n)))
                .forEach(n -> warn.accept("orphaned by --force: " + n + " (its grants: rdc repo gpu list)"));
    }

    Optional<Instant> inventoryGeneratedAt() {
        return Optional.ofNullable(inventoryGeneratedAt);
    }

    Optional<Integer> repos() {
        return Optional.ofNullable(repos);
    }

    /** The name the machine reports for itself ({@code @machine}), to compare with the one set up. */
    Optional<String> reportedMachine() {
        return Optional.ofNullable(reportedMachine);
    }

    /**
     * Whether prepare's line is printed: its machine-key step repeats what {@code node-agent key} (the step
     * before, {@link MachineKeyStep}) said already when the key is unchanged; a failure there is still shown.
     */
    static boolean relayed(String line) {
        return !line.startsWith("machine key: unchanged");
    }

    private static String value(String line) {
        return line.substring(line.indexOf(' ') + 1).strip();
    }
}
