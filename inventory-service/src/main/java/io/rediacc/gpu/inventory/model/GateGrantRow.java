package io.rediacc.gpu.inventory.model;

import io.rediacc.gpu.contracts.events.Grant;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** One grant a gate reported it enforces now. */
@Entity
@Table(name = "gate_grant")
public class GateGrantRow {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "gate_key")
    public String gateKey;

    @Column(name = "machine")
    public String machine;

    @Column(name = "gate_id")
    public String gateId;

    @Column(name = "repo_guid")
    public String repoGuid;

    @Column(name = "repo_name")
    public String repoName;

    @Column(name = "device")
    public String device;

    @Column(name = "exclusive")
    public boolean exclusive;

    @Column(name = "granted_by")
    public String grantedBy;

    @Column(name = "granted_at")
    public Instant grantedAt;

    public static GateGrantRow of(Gate gate, Grant grant) {
        GateGrantRow row = new GateGrantRow();
        row.gateKey = gate.key;
        row.machine = gate.machine;
        row.gateId = gate.gateId;
        row.repoGuid = grant.repoGuid();
        row.repoName = grant.repoName();
        row.device = grant.device();
        row.exclusive = grant.exclusive();
        row.grantedBy = grant.grantedBy();
        row.grantedAt = grant.grantedAt();
        return row;
    }
}
