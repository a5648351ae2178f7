package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.contracts.text.ClosestName;
import io.rediacc.gpu.contracts.events.Topics;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;


/** Every refusal of the grant rules, worded once. */
public final class Problems {

    private Problems() {
    }

    public static ApiProblem noInventory(String machine) {
        return new ApiProblem(ProblemType.NO_INVENTORY, "no inventory from machine " + machine + "; run setup",
                "run the GPU setup on " + machine + " so its node-agent publishes the machine's devices and repos on "
                        + Topics.INVENTORY + ", then retry",
                Map.of("machine", machine));
    }

    /** A grant on a removed machine: refused until it rejoins with a new key registration (issue 31). */
    public static ApiProblem machineRemoved(String machine, java.time.Instant removedAt) {
        return new ApiProblem(ProblemType.NO_INVENTORY, "machine " + machine + " was removed from the fleet at " + removedAt
                        + " and its key revoked; nothing can be granted on it until it rejoins",
                "register the machine again (rdc machine setup " + machine + ", which registers its key), let its"
                        + " node-agent publish a new inventory, then retry",
                Map.of("machine", machine, "removedAt", removedAt.toString()));
    }

    /** A key registration refused: the machine holds another key (rdc machine setup prints it; rdc drops the REST aside). */
    public static ApiProblem machineKeyHeld(String machine, String registeredKeyId, String registeredBy,
            java.time.Instant registeredAt, String offeredKeyId) {
        return new ApiProblem(ProblemType.MACHINE_KEY_REGISTERED, "machine " + machine + " already has key " + registeredKeyId
                        + " (registered by " + registeredBy + " at " + registeredAt + "), not " + offeredKeyId,
                "if the machine was reinstalled or its key replaced on purpose, re-key it: rdc machine setup "
                        + machine + " --rekey (PUT ...?rekey=true); else the key offered is not the machine's",
                Map.of("machine", machine, "registeredKeyId", registeredKeyId, "offeredKeyId", offeredKeyId));
    }

    public static ApiProblem unknownMachine(String machine) {
        return new ApiProblem(ProblemType.UNKNOWN_MACHINE, "machine " + machine + " is unknown: it has sent no inventory and holds no grants",
                "check the machine name (GET /api/v1/machines on the inventory service lists them), or run the GPU setup on it",
                Map.of("machine", machine));
    }

    public static ApiProblem repoNotOnMachine(String repo, String machine, Collection<String> reposThere) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("machine", machine);
        details.put("repos", List.copyOf(reposThere));
        return new ApiProblem(ProblemType.UNKNOWN_REPO, "repo " + repo + " is not on machine " + machine
                        + (reposThere.isEmpty() ? " (its inventory lists no repos)" : " (its repos: " + String.join(", ", reposThere) + ")"),
                "check the repo name, or wait for " + machine + "'s next inventory if the repo was just created",
                details);
    }

    public static ApiProblem repoNowhere(String repo) {
        return new ApiProblem(ProblemType.UNKNOWN_REPO, "repo " + repo + " is not on any machine that has sent an inventory",
                "check the repo name, or name its machine: " + repo + "@<machine>");
    }

    public static ApiProblem ambiguousRepo(String repo, Collection<String> machines) {
        return new ApiProblem(ProblemType.AMBIGUOUS_REPO, "repo name " + repo + " exists on several machines: " + String.join(", ", machines),
                "name the machine: " + machines.stream().map(m -> repo + "@" + m).collect(Collectors.joining(" or ")),
                Map.of("machines", List.copyOf(machines)));
    }

    public static ApiProblem machineMismatch(String inReference, String inRequest) {
        return new ApiProblem(ProblemType.MACHINE_MISMATCH, "the repo reference names machine " + inReference + " but the request names machine " + inRequest,
                "name the machine once: either name@machine in the path or the machine field/parameter");
    }

    public static ApiProblem unknownDevice(String machine, String device, Collection<String> grantable) {
        Optional<String> closest = ClosestName.among(device, grantable);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("machine", machine);
        details.put("grantable", List.copyOf(grantable));
        closest.ifPresent(c -> details.put("closestMatch", c));
        // one sentence, not every name: the names are in "grantable", and GET /api/v1/machines/{m} lists them
        return new ApiProblem(ProblemType.UNKNOWN_DEVICE, "machine " + machine + " defines no CDI device " + device
                        + closest.map(c -> "; did you mean " + c + "?").orElse(grantable.isEmpty()
                        ? " (it defines no CDI devices at all)" : " (it defines " + grantable.size() + " other names)"),
                closest.map(c -> "grant " + c + " instead, or ").orElse("") + "grant one of the machine's names "
                        + "(GET /api/v1/machines/" + machine + " lists them); if the device is new, rerun setup on " + machine
                        + " so the CDI spec and inventory include it",
                details);
    }

    public static ApiProblem heldByOthers(String machine, String device, List<Holder> holders) {
        return new ApiProblem(ProblemType.EXCLUSIVE_CONFLICT, "cannot reserve " + device + " exclusively on " + machine + ": "
                        + (holders.stream().allMatch(h -> h.device().equals(device)) ? "it is granted to "
                        : "its card is granted to ") + describe(holders, device),
                "revoke it from " + holders.stream().map(Holder::repo).distinct().collect(Collectors.joining(", "))
                        + " first, or grant it without exclusive",
                Map.of("machine", machine, "holders", holders));
    }

    public static ApiProblem heldExclusively(String machine, String device, Holder holder) {
        return new ApiProblem(ProblemType.EXCLUSIVE_CONFLICT, device + " on " + machine + (holder.device().equals(device) ? " is reserved exclusively by repo "
                        : " reaches a card reserved exclusively (as " + holder.device() + ") by repo ")
                        + holder.repo() + " (" + holder.repoGuid() + ")",
                holder.device().equals(device)
                        ? "ask the owner of " + holder.repo() + " to release it (DELETE its grant), or choose another device"
                        : "ask the owner of " + holder.repo() + " to release " + holder.device()
                                + " (DELETE its grant), or choose a device on another card",
                Map.of("machine", machine, "holders", List.of(holder)));
    }

    public static ApiProblem notGranted(String repo, String machine, String device, Collection<String> granted) {
        return new ApiProblem(ProblemType.NOT_GRANTED, "repo " + repo + " on " + machine + " has no grant of " + device
                        + (granted.isEmpty() ? " (it has no grants)" : " (its grants: " + String.join(", ", granted) + ")"),
                "revoke one of the names it holds; GET /api/v1/repos/" + repo + "@" + machine + "/grants lists them",
                Map.of("machine", machine, "granted", List.copyOf(granted)));
    }

    public static ApiProblem tooManyGrants(String machine, int held, int cap) {
        return new ApiProblem(ProblemType.TOO_MANY_GRANTS, "machine " + machine + " holds " + held + " grants, the most one machine may hold (grants.max-grants-per-machine = "
                        + cap + "): its grant snapshot must stay under the topic's record size limit",
                "revoke grants this machine no longer needs (a repo granted nvidia.com/gpu=all needs no per-card grants), then retry",
                Map.of("machine", machine, "held", held, "limit", cap));
    }

    public static ApiProblem recordTooLarge(String machine, String topic, int bytes, int limit) {
        return new ApiProblem(ProblemType.RECORD_TOO_LARGE, "this change of machine " + machine + " would publish a " + bytes + "-byte record on " + topic
                        + ", over the " + limit + "-byte limit of the topic (grants.relay.max-record-bytes)",
                "revoke grants of " + machine + " it no longer needs, or use shorter repo names, then retry",
                Map.of("machine", machine, "topic", topic, "bytes", bytes, "limit", limit));
    }

    /** Most close matches an audit event names for an unknown device. */
    static final int AUDIT_CLOSE_MATCHES = 3;
    /** Longest reason an audit event carries: the record stays small whatever the machine lists. */
    static final int AUDIT_REASON_CHARS = 500;

    /**
     * The reason a refusal's audit event carries: bounded where it is made. The API answer lists every
     * grantable name; the event names at most {@link #AUDIT_CLOSE_MATCHES} close ones and the count,
     * because an inventory of thousands of long names made a 1 MB record the broker refused.
     */
    public static String auditReason(ApiProblem problem, String device) {
        String text;
        if ("unknown-device".equals(problem.error()) && problem.details().get("grantable") instanceof Collection<?> all) {
            List<String> names = all.stream().map(String::valueOf).toList();
            List<String> close = ClosestName.nearest(device, names, AUDIT_CLOSE_MATCHES);
            text = "unknown-device: no CDI device " + device + " among " + names.size() + " grantable names"
                    + (close.isEmpty() ? "" : "; closest: " + String.join(", ", close));
        } else {
            text = problem.error() + ": " + problem.detail();
        }
        return text.length() <= AUDIT_REASON_CHARS ? text : text.substring(0, AUDIT_REASON_CHARS - 1) + "…";
    }

    public static ApiProblem machineHasGrants(String machine, List<io.rediacc.gpu.contracts.events.Grant> grants) {
        List<String> held = grants.stream().map(g -> g.repoName() + " " + g.device()).toList();
        return new ApiProblem(ProblemType.MACHINE_HAS_GRANTS, "machine " + machine + " still holds " + grants.size() + " grant(s): " + String.join(", ", held),
                "revoke them first, or remove the machine with its grants: rdc machine remove " + machine
                        + " --revoke-grants (DELETE /api/v1/machines/" + machine + "?revokeGrants=true)",
                Map.of("machine", machine, "grants", held));
    }

    public static ApiProblem invalidExpiry(String detail) {
        return new ApiProblem(ProblemType.INVALID_EXPIRY, detail,
                "give expiresIn as a positive duration such as 30m, 8h or 7d, or expiresAt as a future ISO-8601 "
                        + "instant such as 2026-12-01T18:00:00Z, not both");
    }

    public static ApiProblem invalidReason(String detail) {
        return new ApiProblem(ProblemType.INVALID_REASON, detail,
                "give a reason of at most 500 characters without control characters, e.g. ticket-123");
    }

    private static String describe(List<Holder> holders, String device) {
        return holders.stream()
                .map(h -> "repo " + h.repo() + " (" + h.repoGuid() + (h.exclusive() ? ", exclusive" : "") + ")"
                        + (h.device().equals(device) ? "" : " as " + h.device()))
                .collect(Collectors.joining(", "));
    }
}
