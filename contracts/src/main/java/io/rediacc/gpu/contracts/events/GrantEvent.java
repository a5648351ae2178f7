package io.rediacc.gpu.contracts.events;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/**
 * One entry of the audit trail on {@link Topics#GRANT_EVENTS} (key = machine): who granted,
 * revoked or was refused what, and why.
 *
 * @param version       the machine's grant version after the change; absent for refusals
 * @param reason        why a request was refused, or why the service itself revoked a grant (it
 *                      expired, its machine was removed); absent otherwise
 * @param requestReason the reason the operator gave with the request ({@code rdc ... --reason}), if any
 * @param expiresAt     when a granted grant expires (it is then revoked as {@code expired}); absent if never
 */
public record GrantEvent(String id, Type type, String machine, String repoGuid, String repoName, String device,
                         boolean exclusive, String actor, String reason, Long version, Instant at,
                         String requestReason, Instant expiresAt) {

    /** An event without a request reason or expiry. */
    public GrantEvent(String id, Type type, String machine, String repoGuid, String repoName, String device,
                      boolean exclusive, String actor, String reason, Long version, Instant at) {
        this(id, type, machine, repoGuid, repoName, device, exclusive, actor, reason, version, at, null, null);
    }

    public enum Type {
        @JsonProperty("granted") GRANTED,
        @JsonProperty("revoked") REVOKED,
        @JsonProperty("refused") REFUSED,
        /** Revoked by grant-service because the grant's {@code expiresAt} passed. */
        @JsonProperty("expired") EXPIRED
    }
}
