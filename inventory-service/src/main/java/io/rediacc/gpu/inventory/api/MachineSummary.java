package io.rediacc.gpu.inventory.api;

import org.eclipse.microprofile.openapi.annotations.media.Schema;
import java.time.Instant;

/**
 * One machine in a fleet listing.
 *
 * @param ageSeconds seconds since the machine generated its latest inventory
 * @param stale      the inventory is older than the configured number of heartbeats
 */
@Schema(requiredProperties = {"machine", "gpuCount", "generatedAt", "ageSeconds", "stale"})
public record MachineSummary(String machine, String platform, int gpuCount, Instant generatedAt, long ageSeconds,
                             boolean stale, String agentVersion) {
}
