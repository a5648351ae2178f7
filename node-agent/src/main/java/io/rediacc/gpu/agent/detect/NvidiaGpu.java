package io.rediacc.gpu.agent.detect;

/**
 * One GPU as nvidia-smi reports it; absent values ({@code [N/A]}) are null.
 *
 * @param pciBusId in sysfs form ({@code 0000:07:00.0}), see {@link PciAddress}
 */
public record NvidiaGpu(int index, String uuid, String name, String driverVersion, Long memoryMiB, String pciBusId,
                        String migMode) {

    public NvidiaGpu withMigMode(String mode) {
        return new NvidiaGpu(index, uuid, name, driverVersion, memoryMiB, pciBusId, mode);
    }
}
