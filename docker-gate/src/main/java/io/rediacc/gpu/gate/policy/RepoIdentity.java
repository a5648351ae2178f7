package io.rediacc.gpu.gate.policy;

/**
 * The repo a request is for (known from the endpoint it arrived on) and the machine the gate runs
 * on. {@code buildkitDeviceEntitlementDisabled} is the manifest's promise that this repo's daemon
 * cannot grant devices through BuildKit entitlements, which lets BuildKit traffic through.
 */
public record RepoIdentity(String name, String guid, String machine, boolean buildkitDeviceEntitlementDisabled) {
}
