package io.rediacc.gpu.inventory.model;

import io.rediacc.gpu.contracts.events.MachineInventory;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One GPU of a machine's latest inventory. */
@Entity
@Table(name = "gpu")
public class GpuRow {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    public Long id;

    @Column(name = "machine")
    public String machine;

    @Column(name = "gpu_index")
    public int gpuIndex;

    @Column(name = "vendor")
    public String vendor;

    @Column(name = "name")
    public String name;

    @Column(name = "uuid")
    public String uuid;

    @Column(name = "pci_bus_id")
    public String pciBusId;

    @Column(name = "driver_version")
    public String driverVersion;

    @Column(name = "memory_mib")
    public Long memoryMiB;

    @Column(name = "render_node")
    public String renderNode;

    @Column(name = "mig_mode")
    public String migMode;

    public static GpuRow of(String machine, MachineInventory.Gpu gpu) {
        GpuRow row = new GpuRow();
        row.machine = machine;
        row.gpuIndex = gpu.index();
        row.vendor = gpu.vendor();
        row.name = gpu.name();
        row.uuid = gpu.uuid();
        row.pciBusId = gpu.pciBusId();
        row.driverVersion = gpu.driverVersion();
        row.memoryMiB = gpu.memoryMiB();
        row.renderNode = gpu.renderNode();
        row.migMode = gpu.migMode();
        return row;
    }

    public MachineInventory.Gpu toGpu() {
        return new MachineInventory.Gpu(gpuIndex, vendor, name, uuid, pciBusId, driverVersion, memoryMiB, renderNode, migMode);
    }
}
