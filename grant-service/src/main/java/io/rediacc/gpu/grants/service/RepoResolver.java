package io.rediacc.gpu.grants.service;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.RepoRef;
import io.rediacc.gpu.grants.repository.MachineRepoEntity;
import io.rediacc.gpu.grants.repository.MachineRepoRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.TreeSet;

/**
 * Finds the machine a repo reference means: the one it names ({@code name@machine} or a separate
 * machine field), else the only machine whose inventory lists a repo of that name.
 */
@ApplicationScoped
public class RepoResolver {

    private final MachineRepoRepository repos;

    public RepoResolver(MachineRepoRepository repos) {
        this.repos = repos;
    }

    public Uni<String> machineOf(RepoRef ref, String machineField) {
        String named = ref.machine();
        if (machineField != null && !machineField.isEmpty()) {
            Identifiers.machine(machineField);
            if (named != null && !named.equals(machineField)) {
                throw Problems.machineMismatch(named, machineField);
            }
            named = machineField;
        }
        if (named != null) {
            return Uni.createFrom().item(named);
        }
        return Panache.withSession(() -> repos.everywhere(ref.name())).map(found -> onlyMachine(ref.name(), found));
    }

    private static String onlyMachine(String repo, List<MachineRepoEntity> found) {
        TreeSet<String> machines = new TreeSet<>();
        found.forEach(r -> machines.add(r.machine));
        if (machines.isEmpty()) {
            throw Problems.repoNowhere(repo);
        }
        if (machines.size() > 1) {
            throw Problems.ambiguousRepo(repo, machines);
        }
        return machines.first();
    }
}
