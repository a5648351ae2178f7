package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import io.rediacc.gpu.contracts.events.Grant;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

import java.time.Instant;

/** One grant: a repo (by GUID) may use one CDI device name on one machine. */
@Entity
@Table(name = "grants")
@NamedQuery(name = "Grant.forMachine", query = "from GrantEntity where machine = :machine order by device, repoName, repoGuid")
@NamedQuery(name = "Grant.forRepoName", query = "from GrantEntity where machine = :machine and repoName = :repoName order by device")
@NamedQuery(name = "Grant.forRepo", query = "from GrantEntity where machine = :machine and repoGuid = :repoGuid order by device")
public class GrantEntity extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false)
    public String machine;

    @Column(name = "repo_guid", nullable = false)
    public String repoGuid;

    /** The repo's name when the grant was written; informative, the GUID is what counts. */
    @Column(name = "repo_name", nullable = false)
    public String repoName;

    @Column(nullable = false)
    public String device;

    @Column(nullable = false)
    public boolean exclusive;

    @Column(name = "granted_by", nullable = false)
    public String grantedBy;

    @Column(name = "granted_at", nullable = false)
    public Instant grantedAt;

    /** When the grant expires; null: never. */
    @Column(name = "expires_at")
    public Instant expiresAt;

    public HeldGrant toHeld() {
        return new HeldGrant(toGrant(), expiresAt);
    }

    public Grant toGrant() {
        return new Grant(repoGuid, repoName, device, exclusive, grantedBy, grantedAt);
    }
}
