package io.rediacc.gpu.contracts.api;

import java.util.List;

/**
 * A repo that holds a device, as the live gates enforce it now.
 *
 * @param source where the holding is known from; this service reads gates only, so always {@code gate}
 *               (the CLI adds what grant-service's database says)
 * @param gates  ids of the live gates that report this grant
 */
public record Holder(String repo, String repoGuid, boolean exclusive, String source, List<String> gates) {

    public static final String SOURCE_GATE = "gate";
}
