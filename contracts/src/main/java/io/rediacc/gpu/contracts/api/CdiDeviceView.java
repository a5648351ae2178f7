package io.rediacc.gpu.contracts.api;

import java.util.List;

/** A grantable CDI device and the repos the machine's live gates report holding it. */
public record CdiDeviceView(String name, List<String> deviceNodes, String specFile, String specDigest,
                            List<Holder> holders) {

    public CdiDeviceView {
        holders = holders == null ? List.of() : holders;
    }
}
