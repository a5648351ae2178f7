package io.rediacc.gpu.cli.output;

/** {@code -o table|json|yaml}. */
public enum OutputFormat {
    table, json, yaml
}
