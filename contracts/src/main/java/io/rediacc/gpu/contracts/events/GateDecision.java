package io.rediacc.gpu.contracts.events;

import java.time.Instant;

/**
 * A Docker request the gate refused, on {@link Topics#GATE_DECISIONS} (key = machine).
 *
 * @param rule   the rule that refused it, e.g. {@code device-not-granted}, {@code gpus-flag}, {@code privileged}
 * @param device  the CDI name or host path involved, when there is one
 * @param message the sentence the docker CLI printed (it names the fix too)
 * @param fix     the command or setting that fixes it, on its own (every refusal has one); null in records
 *                written before gates sent it
 */
public record GateDecision(String machine, String gateId, String repoName, String repoGuid, String method,
                           String endpoint, String rule, String device, String message, String fix, Instant at) {
}
