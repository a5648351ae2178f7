package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

/** A repo on a machine, as its latest inventory lists it: the GUID is the repo's identity. */
@Entity
@Table(name = "machine_repos")
@NamedQuery(name = "MachineRepo.forMachine", query = "from MachineRepoEntity where machine = :machine order by name")
@NamedQuery(name = "MachineRepo.byName", query = "from MachineRepoEntity where machine = :machine and name = :name")
@NamedQuery(name = "MachineRepo.everywhere", query = "from MachineRepoEntity where name = :name order by machine")
@NamedQuery(name = "MachineRepo.deleteForMachine", query = "delete from MachineRepoEntity where machine = :machine")
public class MachineRepoEntity extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false)
    public String machine;

    @Column(nullable = false)
    public String name;

    @Column(nullable = false)
    public String guid;

    @Column(name = "fork_of")
    public String forkOf;
}
