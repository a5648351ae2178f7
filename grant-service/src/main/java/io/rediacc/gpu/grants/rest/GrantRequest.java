package io.rediacc.gpu.grants.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Body of a grant call.
 *
 * @param machine   the repo's machine; may be left out when the path names it ({@code name@machine})
 *                  or the repo name is unique in the fleet
 * @param device    one qualified CDI device name, e.g. {@code nvidia.com/gpu=0}
 * @param exclusive reserve the name for this repo alone (default false)
 * @param reason    why (a ticket, a note), recorded in the history and the audit event
 * @param expiresIn how long the grant lasts, e.g. {@code 8h}; grant-service revokes it then
 * @param expiresAt when the grant ends (ISO-8601 instant); instead of {@code expiresIn}
 */
@Schema(description = "What to grant: one CDI device name, optionally exclusively")
public record GrantRequest(
        @Schema(description = "machine of the repo; optional when the path says name@machine or the name is unique", examples = "gpu-host-1")
        String machine,
        @Schema(required = true, description = "qualified CDI device name", examples = "nvidia.com/gpu=0")
        String device,
        @Schema(description = "reserve the name for this repo alone", defaultValue = "false")
        Boolean exclusive,
        @Schema(description = "why: recorded in the history (GET /api/v1/audit) and the audit event", examples = "ticket-123")
        String reason,
        @Schema(description = "how long the grant lasts (30m, 8h, 7d); revoked by the service then", examples = "8h")
        String expiresIn,
        @Schema(description = "when the grant ends (ISO-8601 instant); instead of expiresIn", examples = "2026-12-01T18:00:00Z")
        java.time.Instant expiresAt) {
}
