package io.rediacc.gpu.grants.rest;

import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Body of a grant call.
 *
 * @param machine   the repo's machine; may be left out when the path names it ({@code name@machine})
 *                  or the repo name is unique in the fleet
 * @param device    one qualified CDI device name, e.g. {@code nvidia.com/gpu=0}
 * @param exclusive reserve the name for this repo alone (default false)
 */
@Schema(description = "What to grant: one CDI device name, optionally exclusively")
public record GrantRequest(
        @Schema(description = "machine of the repo; optional when the path says name@machine or the name is unique", examples = "gpu-host-1")
        String machine,
        @Schema(required = true, description = "qualified CDI device name", examples = "nvidia.com/gpu=0")
        String device,
        @Schema(description = "reserve the name for this repo alone", defaultValue = "false")
        Boolean exclusive) {
}
