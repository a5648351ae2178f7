package io.rediacc.gpu.agent.detect;

import java.util.Locale;

/** GPU vendors by PCI vendor id, named as the inventory names them. */
public enum GpuVendor {
    NVIDIA(0x10de, "nvidia"),
    AMD(0x1002, "amd"),
    INTEL(0x8086, "intel"),
    UNKNOWN(-1, "unknown");

    private final int pciId;
    private final String inventoryName;

    GpuVendor(int pciId, String inventoryName) {
        this.pciId = pciId;
        this.inventoryName = inventoryName;
    }

    public String inventoryName() {
        return inventoryName;
    }

    public int pciId() {
        return pciId;
    }

    /** From sysfs text such as {@code 0x10de}. */
    public static GpuVendor fromSysfs(String text) {
        if (text == null) {
            return UNKNOWN;
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            int id = Integer.parseInt(t.startsWith("0x") ? t.substring(2) : t, 16);
            for (GpuVendor v : values()) {
                if (v.pciId == id) {
                    return v;
                }
            }
        } catch (NumberFormatException ignored) {
            // not a vendor id
        }
        return UNKNOWN;
    }
}
