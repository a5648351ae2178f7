package io.rediacc.gpu.gate.policy;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every JSON field name of the daemon's {@code container.HostConfig} (with the embedded
 * {@code Resources}) plus the legacy ones older daemons knew. Daemons up to v26 decode a container
 * create body into a wrapper that embeds HostConfig, so these names at the top level configure the
 * container; the gate refuses them there.
 */
final class HostConfigFieldNames {

    private static final Set<String> FOLDED = Stream.of(
                    // HostConfig
                    "Binds", "ContainerIDFile", "LogConfig", "NetworkMode", "PortBindings", "RestartPolicy", "AutoRemove",
                    "VolumeDriver", "VolumesFrom", "ConsoleSize", "Annotations", "CapAdd", "CapDrop", "CgroupnsMode", "Dns",
                    "DnsOptions", "DnsSearch", "ExtraHosts", "GroupAdd", "IpcMode", "Cgroup", "Links", "OomScoreAdj",
                    "PidMode", "Privileged", "PublishAllPorts", "ReadonlyRootfs", "SecurityOpt", "StorageOpt", "Tmpfs",
                    "UTSMode", "UsernsMode", "ShmSize", "Sysctls", "Runtime", "Isolation", "Mounts", "MaskedPaths",
                    "ReadonlyPaths", "Init",
                    // Resources (embedded)
                    "CpuShares", "Memory", "NanoCpus", "CgroupParent", "BlkioWeight", "BlkioWeightDevice",
                    "BlkioDeviceReadBps", "BlkioDeviceWriteBps", "BlkioDeviceReadIOps", "BlkioDeviceWriteIOps", "CpuPeriod",
                    "CpuQuota", "CpuRealtimePeriod", "CpuRealtimeRuntime", "CpusetCpus", "CpusetMems", "Devices",
                    "DeviceCgroupRules", "DeviceRequests", "KernelMemory", "KernelMemoryTCP", "MemoryReservation",
                    "MemorySwap", "MemorySwappiness", "OomKillDisable", "PidsLimit", "Ulimits", "CpuCount", "CpuPercent",
                    "IOMaximumIOps", "IOMaximumBandwidth",
                    // Legacy names (older API versions)
                    "LxcConf", "Cpuset")
            .map(GoJsonFolding::fold)
            .collect(Collectors.toUnmodifiableSet());

    private HostConfigFieldNames() {
    }

    /** True when Go would decode {@code key} into a HostConfig field. */
    static boolean isHostConfigField(String key) {
        return FOLDED.contains(GoJsonFolding.fold(key));
    }
}
