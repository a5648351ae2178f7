package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** A machine that has sent an inventory; {@code generatedAt} is that of the newest one applied. */
@Entity
@Table(name = "machines")
public class MachineEntity extends PanacheEntityBase {

    @Id
    public String machine;

    public String platform;

    @Column(name = "generated_at", nullable = false)
    public Instant generatedAt;

    @Column(name = "received_at", nullable = false)
    public Instant receivedAt;
}
