package io.rediacc.gpu.inventory.repository;

/**
 * Narrows a fleet listing. Absent fields do not filter.
 *
 * @param vendor       GPU vendor, compared case-insensitively ({@code nvidia}, {@code amd}, {@code intel})
 * @param product      part of a GPU's product name, case-insensitive ({@code A100} matches "NVIDIA A100-SXM4-40GB")
 * @param freeDevices  only machines with at least one CDI device no live gate reports as exclusively held
 */
public record FleetFilter(String vendor, String product, boolean freeDevices) {

    public static final FleetFilter NONE = new FleetFilter(null, null, false);
}
