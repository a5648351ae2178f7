package io.rediacc.gpu.agent.toolkit;

import java.util.Locale;

/** {@code --install-nvidia-toolkit}: when setup installs the NVIDIA Container Toolkit and generates NVIDIA's spec. */
public enum ToolkitPolicy {
    /** Only when an NVIDIA GPU is present (the default). */
    AUTO("auto"),
    /** Always install; generate the spec when an NVIDIA GPU is present. */
    ALWAYS("true"),
    /** Never install, never generate an NVIDIA spec. */
    NEVER("false");

    private final String flag;

    ToolkitPolicy(String flag) {
        this.flag = flag;
    }

    public String flag() {
        return flag;
    }

    /** Parses the flag's value; the message says which values exist. */
    public static ToolkitPolicy parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (ToolkitPolicy p : values()) {
            if (p.flag.equals(v)) {
                return p;
            }
        }
        throw new IllegalArgumentException("--install-nvidia-toolkit must be auto, true or false, not \"" + value + "\"");
    }
}
