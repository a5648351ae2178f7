package io.rediacc.gpu.contracts.events;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/**
 * One entry of the audit trail on {@link Topics#GRANT_EVENTS} (key = machine): who granted,
 * revoked or was refused what, and why.
 *
 * @param version the machine's grant version after the change; absent for refusals
 * @param reason  why a request was refused; absent otherwise
 */
public record GrantEvent(String id, Type type, String machine, String repoGuid, String repoName, String device,
                         boolean exclusive, String actor, String reason, Long version, Instant at) {

    public enum Type {
        @JsonProperty("granted") GRANTED,
        @JsonProperty("revoked") REVOKED,
        @JsonProperty("refused") REFUSED
    }
}
