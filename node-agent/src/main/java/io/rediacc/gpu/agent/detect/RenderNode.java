package io.rediacc.gpu.agent.detect;

/**
 * A DRM render node {@code /dev/dri/renderD<N>} and the card behind it.
 *
 * @param pciAddress the card's PCI address in sysfs form, when sysfs tells it
 * @param pciDevice  the card's PCI device id ({@code 0x740f}), when sysfs tells it
 */
public record RenderNode(int minor, String devicePath, GpuVendor vendor, String pciAddress, String pciDevice) {

    public String name() {
        return "renderD" + minor;
    }
}
