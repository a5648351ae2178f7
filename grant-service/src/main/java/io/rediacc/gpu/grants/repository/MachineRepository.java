package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import jakarta.enterprise.context.ApplicationScoped;

/** Machines that have sent an inventory. */
@ApplicationScoped
public class MachineRepository implements PanacheRepositoryBase<MachineEntity, String> {
}
