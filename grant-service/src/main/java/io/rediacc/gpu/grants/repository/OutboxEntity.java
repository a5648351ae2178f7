package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** A Kafka record written in the transaction of the change it describes, waiting for the relay. */
@Entity
@Table(name = "outbox")
public class OutboxEntity extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false)
    public String topic;

    @Column(name = "record_key", nullable = false)
    public String recordKey;

    /** The record value (JSON). */
    @Column(nullable = false)
    public String payload;

    /** The CloudEvents headers, a JSON object of strings. */
    @Column(nullable = false)
    public String headers;

    @Column(name = "created_at", nullable = false)
    public Instant createdAt;
}
