package io.rediacc.gpu.dockerd;

/**
 * An NVIDIA card of the simulated machine as the image's {@code nvidia-smi} stand-in names it: the
 * minor of its {@code /dev/nvidia<minor>} node, its name and UUID (from the machine's inventory).
 */
public record GpuCard(int minor, String name, String uuid) {
}
