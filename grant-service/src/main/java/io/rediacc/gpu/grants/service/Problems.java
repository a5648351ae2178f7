package io.rediacc.gpu.grants.service;

import io.rediacc.gpu.contracts.text.ClosestName;
import io.rediacc.gpu.contracts.events.Topics;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import static io.rediacc.gpu.grants.service.Problem.Kind.BAD_INPUT;
import static io.rediacc.gpu.grants.service.Problem.Kind.CONFLICT;
import static io.rediacc.gpu.grants.service.Problem.Kind.NOT_FOUND;
import static io.rediacc.gpu.grants.service.Problem.Kind.UNPROCESSABLE;

/** Every refusal of the grant rules, worded once. */
public final class Problems {

    private Problems() {
    }

    public static Problem noInventory(String machine) {
        return new Problem(CONFLICT, "no-inventory",
                "no inventory from machine " + machine + "; run setup",
                "run the GPU setup on " + machine + " so its node-agent publishes the machine's devices and repos on "
                        + Topics.INVENTORY + ", then retry",
                Map.of("machine", machine));
    }

    public static Problem unknownMachine(String machine) {
        return new Problem(NOT_FOUND, "unknown-machine",
                "machine " + machine + " is unknown: it has sent no inventory and holds no grants",
                "check the machine name (GET /api/v1/machines on the inventory service lists them), or run the GPU setup on it",
                Map.of("machine", machine));
    }

    public static Problem repoNotOnMachine(String repo, String machine, Collection<String> reposThere) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("machine", machine);
        details.put("repos", List.copyOf(reposThere));
        return new Problem(NOT_FOUND, "unknown-repo",
                "repo " + repo + " is not on machine " + machine
                        + (reposThere.isEmpty() ? " (its inventory lists no repos)" : " (its repos: " + String.join(", ", reposThere) + ")"),
                "check the repo name, or wait for " + machine + "'s next inventory if the repo was just created",
                details);
    }

    public static Problem repoNowhere(String repo) {
        return new Problem(NOT_FOUND, "unknown-repo",
                "repo " + repo + " is not on any machine that has sent an inventory",
                "check the repo name, or name its machine: " + repo + "@<machine>");
    }

    public static Problem ambiguousRepo(String repo, Collection<String> machines) {
        return new Problem(CONFLICT, "ambiguous-repo",
                "repo name " + repo + " exists on several machines: " + String.join(", ", machines),
                "name the machine: " + machines.stream().map(m -> repo + "@" + m).collect(Collectors.joining(" or ")),
                Map.of("machines", List.copyOf(machines)));
    }

    public static Problem machineMismatch(String inReference, String inRequest) {
        return new Problem(BAD_INPUT, "machine-mismatch",
                "the repo reference names machine " + inReference + " but the request names machine " + inRequest,
                "name the machine once: either name@machine in the path or the machine field/parameter");
    }

    public static Problem unknownDevice(String machine, String device, Collection<String> grantable) {
        Optional<String> closest = ClosestName.among(device, grantable);
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("machine", machine);
        details.put("grantable", List.copyOf(grantable));
        closest.ifPresent(c -> details.put("closestMatch", c));
        String names = grantable.isEmpty() ? "none (the machine defines no CDI devices)" : String.join(", ", grantable);
        return new Problem(UNPROCESSABLE, "unknown-device",
                "machine " + machine + " defines no CDI device " + device
                        + closest.map(c -> "; did you mean " + c + "?").orElse("") + " Grantable names: " + names,
                closest.map(c -> "grant " + c + " instead, or ")
                        .orElse("") + "grant one of the machine's names; if the device is new, rerun setup on " + machine
                        + " so the CDI spec and inventory include it",
                details);
    }

    public static Problem heldByOthers(String machine, String device, List<Holder> holders) {
        return new Problem(CONFLICT, "exclusive-conflict",
                "cannot reserve " + device + " exclusively on " + machine + ": "
                        + (holders.stream().allMatch(h -> h.device().equals(device)) ? "it is granted to "
                        : "its card is granted to ") + describe(holders, device),
                "revoke it from " + holders.stream().map(Holder::repo).distinct().collect(Collectors.joining(", "))
                        + " first, or grant it without exclusive",
                Map.of("machine", machine, "holders", holders));
    }

    public static Problem heldExclusively(String machine, String device, Holder holder) {
        return new Problem(CONFLICT, "exclusive-conflict",
                device + " on " + machine + (holder.device().equals(device) ? " is reserved exclusively by repo "
                        : " reaches a card reserved exclusively (as " + holder.device() + ") by repo ")
                        + holder.repo() + " (" + holder.repoGuid() + ")",
                holder.device().equals(device)
                        ? "ask the owner of " + holder.repo() + " to release it (DELETE its grant), or choose another device"
                        : "ask the owner of " + holder.repo() + " to release " + holder.device()
                                + " (DELETE its grant), or choose a device on another card",
                Map.of("machine", machine, "holders", List.of(holder)));
    }

    public static Problem notGranted(String repo, String machine, String device, Collection<String> granted) {
        return new Problem(NOT_FOUND, "not-granted",
                "repo " + repo + " on " + machine + " has no grant of " + device
                        + (granted.isEmpty() ? " (it has no grants)" : " (its grants: " + String.join(", ", granted) + ")"),
                "revoke one of the names it holds; GET /api/v1/repos/" + repo + "@" + machine + "/grants lists them",
                Map.of("machine", machine, "granted", List.copyOf(granted)));
    }

    public static Problem tooManyGrants(String machine, int held, int cap) {
        return new Problem(CONFLICT, "too-many-grants",
                "machine " + machine + " holds " + held + " grants, the most one machine may hold (grants.max-grants-per-machine = "
                        + cap + "): its grant snapshot must stay under the topic's record size limit",
                "revoke grants this machine no longer needs (a repo granted nvidia.com/gpu=all needs no per-card grants), then retry",
                Map.of("machine", machine, "held", held, "limit", cap));
    }

    public static Problem recordTooLarge(String machine, String topic, int bytes, int limit) {
        return new Problem(CONFLICT, "record-too-large",
                "this change of machine " + machine + " would publish a " + bytes + "-byte record on " + topic
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
    public static String auditReason(Problem problem, String device) {
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

    public static Problem machineHasGrants(String machine, List<io.rediacc.gpu.contracts.events.Grant> grants) {
        List<String> held = grants.stream().map(g -> g.repoName() + " " + g.device()).toList();
        return new Problem(CONFLICT, "machine-has-grants",
                "machine " + machine + " still holds " + grants.size() + " grant(s): " + String.join(", ", held),
                "revoke them first, or remove the machine with its grants: rdc machine remove " + machine
                        + " --revoke-grants (DELETE /api/v1/machines/" + machine + "?revokeGrants=true)",
                Map.of("machine", machine, "grants", held));
    }

    public static Problem invalidExpiry(String detail) {
        return new Problem(BAD_INPUT, "invalid-expiry", detail,
                "give expiresIn as a positive duration such as 30m, 8h or 7d, or expiresAt as a future ISO-8601 "
                        + "instant such as 2026-12-01T18:00:00Z, not both");
    }

    public static Problem invalidReason(String detail) {
        return new Problem(BAD_INPUT, "invalid-reason", detail,
                "give a reason of at most 500 characters without control characters, e.g. ticket-123");
    }

    private static String describe(List<Holder> holders, String device) {
        return holders.stream()
                .map(h -> "repo " + h.repo() + " (" + h.repoGuid() + (h.exclusive() ? ", exclusive" : "") + ")"
                        + (h.device().equals(device) ? "" : " as " + h.device()))
                .collect(Collectors.joining(", "));
    }
}
