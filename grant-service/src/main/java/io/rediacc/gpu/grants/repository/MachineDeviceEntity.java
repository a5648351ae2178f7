package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

/** One grantable CDI device of a machine, as its latest inventory defines it. */
@Entity
@Table(name = "machine_devices")
// named queries are parsed at start-up, not on an event loop during the first request
@NamedQuery(name = "MachineDevice.forMachine", query = "from MachineDeviceEntity where machine = :machine order by name")
@NamedQuery(name = "MachineDevice.deleteForMachine", query = "delete from MachineDeviceEntity where machine = :machine")
public class MachineDeviceEntity extends PanacheEntityBase {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(nullable = false)
    public String machine;

    /** The qualified CDI name, e.g. {@code nvidia.com/gpu=0}. */
    @Column(nullable = false)
    public String name;

    /** JSON array of the device's host device nodes (see {@link DeviceNodes}). */
    @Column(name = "device_nodes", nullable = false)
    public String deviceNodes;

    /** JSON array of the PCI addresses of the cards the device reaches (see {@link DeviceNodes}). */
    @Column(name = "cards", nullable = false)
    public String cards;
}
