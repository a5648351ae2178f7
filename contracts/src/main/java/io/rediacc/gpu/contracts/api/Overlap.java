package io.rediacc.gpu.contracts.api;

/**
 * Another repo's grant on the same machine whose device shares a card with the device just granted
 * (e.g. its {@code nvidia.com/gpu=all} when {@code nvidia.com/gpu=0} is granted exclusively): a
 * warning, not a refusal, because reservations are by name.
 */
public record Overlap(String repo, String device, boolean exclusive) {
}
