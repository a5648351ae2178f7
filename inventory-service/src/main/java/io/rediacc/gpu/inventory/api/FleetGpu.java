package io.rediacc.gpu.inventory.api;

/** A GPU in a fleet-wide listing: the machine it is in, then the GPU as the machine reported it. */
public record FleetGpu(String machine, int index, String vendor, String name, String uuid, String pciBusId,
                       String driverVersion, Long memoryMiB, String renderNode, String migMode) {
}
