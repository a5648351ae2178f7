package io.rediacc.gpu.inventory.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

/** The latest inventory a machine published (its lists live in their own tables). */
@Entity
@Table(name = "machine")
public class Machine {

    @Id
    @Column(name = "name")
    public String name;

    @Column(name = "platform")
    public String platform;

    @Column(name = "agent_version")
    public String agentVersion;

    @Column(name = "schema_version")
    public int schemaVersion;

    /** The machine's own timestamp for this inventory: the only thing that orders inventories. */
    @Column(name = "generated_at")
    public Instant generatedAt;

    @Column(name = "received_at")
    public Instant receivedAt;

    /** {@code MachineInventory.ToolkitState} as JSON; read back whole, never queried. */
    @Column(name = "toolkit_json")
    public String toolkitJson;

    @Column(name = "persistenced_socket")
    public String persistencedSocket;

    /** JSON array of the spec problems the agent reported. */
    @Column(name = "spec_problems_json")
    public String specProblemsJson;

    /** SHA-256 of the inventory with generatedAt left out; equal digests mean equal lists. */
    @Column(name = "content_digest")
    public String contentDigest;
}
