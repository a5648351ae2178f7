package io.rediacc.gpu.contracts.identity;

import java.util.Optional;

/**
 * How an operator points at a repo: {@code name} or {@code name@machine}. Without a machine the
 * name must be unambiguous across the fleet; resolving that is the caller's job.
 */
public record RepoRef(String name, String machine) {

    public RepoRef {
        Identifiers.repoName(name);
        if (machine != null) {
            Identifiers.machine(machine);
        }
    }

    public static RepoRef parse(String ref) {
        if (ref == null || ref.isEmpty()) {
            throw new InvalidIdentifierException("repo reference is empty; expected name or name@machine, e.g. gpu-a@m1");
        }
        int at = ref.indexOf('@');
        if (at < 0) {
            return new RepoRef(ref, null);
        }
        if (ref.indexOf('@', at + 1) >= 0) {
            throw new InvalidIdentifierException("repo reference \"" + Identifiers.printable(ref)
                    + "\" has more than one '@'; expected name or name@machine, e.g. gpu-a@m1");
        }
        String machine = ref.substring(at + 1);
        if (machine.isEmpty()) {
            throw new InvalidIdentifierException("repo reference \"" + Identifiers.printable(ref)
                    + "\" ends with '@'; name the machine after it, e.g. gpu-a@m1, or leave out the '@'");
        }
        return new RepoRef(ref.substring(0, at), machine);
    }

    /** This reference with the machine filled in, unless it already names one. */
    public RepoRef onMachine(String defaultMachine) {
        return machine != null ? this : new RepoRef(name, defaultMachine);
    }

    public Optional<String> machineName() {
        return Optional.ofNullable(machine);
    }

    @Override
    public String toString() {
        return machine == null ? name : name + "@" + machine;
    }
}
