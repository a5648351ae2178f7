package io.rediacc.gpu.inventory.api;

/** Every error answer: what went wrong (short), the details, and what to do about it. */
public record ErrorBody(String error, String detail, String hint) {
}
