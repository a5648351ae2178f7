package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The grant version of a machine: rises by one with every change of its grants. */
@Entity
@Table(name = "machine_versions")
public class MachineVersionEntity extends PanacheEntityBase {

    @Id
    public String machine;

    @Column(nullable = false)
    public long version;
}
