package io.rediacc.gpu.inventory.model;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One grantable CDI device name of a machine's latest inventory. */
@Entity
@Table(name = "cdi_device")
public class CdiDeviceRow {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "machine")
    public String machine;

    /** Qualified CDI name, {@code vendor/class=device}. */
    @Column(name = "name")
    public String name;

    /** JSON array of device node paths. */
    @Column(name = "device_nodes_json")
    public String deviceNodesJson;

    @Column(name = "spec_file")
    public String specFile;

    @Column(name = "spec_digest")
    public String specDigest;
}
