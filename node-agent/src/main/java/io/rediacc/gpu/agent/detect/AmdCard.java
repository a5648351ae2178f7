package io.rediacc.gpu.agent.detect;

/**
 * An AMD card as the product numbers it ({@code rediacc.io/amd=gpu<index>}): its position among
 * the KFD topology's GPU nodes (ROCm's own order), or among AMD render nodes without KFD.
 *
 * @param renderNode the card's render node; null when KFD names a minor that has no device node
 * @param kfd        the card's KFD node; null on a machine without KFD topology
 */
public record AmdCard(int index, RenderNode renderNode, KfdGpu kfd) {
}
