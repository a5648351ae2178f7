package io.rediacc.gpu.inventory.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A repo the machine's inventory lists (name, GUID, fork parent). */
@Entity
@Table(name = "machine_repo")
public class MachineRepoRow {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "machine")
    public String machine;

    @Column(name = "name")
    public String name;

    @Column(name = "guid")
    public String guid;

    @Column(name = "fork_of")
    public String forkOf;
}
