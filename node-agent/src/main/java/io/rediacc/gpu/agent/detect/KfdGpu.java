package io.rediacc.gpu.agent.detect;

import java.util.Locale;

/**
 * A GPU node of the KFD (AMD compute) topology.
 *
 * @param node             the topology node number
 * @param renderMinor      {@code drm_render_minor}: the card's render node is {@code /dev/dri/renderD<renderMinor>}
 * @param uniqueId         {@code unique_id}, an unsigned 64-bit value; 0 when the card does not report one
 * @param gfxTargetVersion e.g. 90010 for gfx90a
 */
public record KfdGpu(int node, int renderMinor, int vendorId, int deviceId, PciAddress pciAddress, long uniqueId,
                     int gfxTargetVersion) {

    /** The LLVM target name, e.g. {@code gfx90a} for 90010 and {@code gfx942} for 90402. */
    public String gfxTarget() {
        int major = gfxTargetVersion / 10000;
        int minor = (gfxTargetVersion / 100) % 100;
        int stepping = gfxTargetVersion % 100;
        return String.format(Locale.ROOT, "gfx%d%x%x", major, minor, stepping);
    }

    /** The UUID ROCm reports for the card ({@code GPU-} and the unique id in hex), when it has one. */
    public String uuid() {
        return uniqueId == 0 ? null : "GPU-" + String.format(Locale.ROOT, "%016x", uniqueId);
    }
}
