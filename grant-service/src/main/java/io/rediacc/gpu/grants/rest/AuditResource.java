package io.rediacc.gpu.grants.rest;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.grants.repository.HistoryQuery;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;

/** The history of grants, revokes, expiries and refusals. */
@Path("/api/v1/audit")
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "audit", description = "Every grant, revoke, expiry and refusal, kept in grant-service's database")
public class AuditResource {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    private final HistoryQuery history;

    public AuditResource(HistoryQuery history) {
        this.history = history;
    }

    /**
     * One page of the history, oldest first.
     *
     * @param next the cursor of the next page (pass it as {@code after}); absent on the last page
     */
    public record AuditPage(List<HistoryQuery.Entry> entries, String next) {
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(operationId = "listAudit", summary = "The history of grants, revokes, expiries and refusals",
            description = "Oldest first, a page at a time: pass the answer's next as after for the following page.")
    @APIResponse(responseCode = "200", description = "one page", content = @Content(schema = @Schema(implementation = AuditPage.class)))
    @APIResponse(responseCode = "400", description = "invalid filter, time, cursor or limit", content = @Content(schema = @Schema(implementation = ProblemBody.class)))
    public Uni<AuditPage> audit(@QueryParam("machine") String machine,
                                @Parameter(description = "repo name") @QueryParam("repo") String repo,
                                @Parameter(description = "qualified CDI name") @QueryParam("device") String device,
                                @Parameter(description = "ISO-8601 instant, inclusive") @QueryParam("since") String since,
                                @Parameter(description = "ISO-8601 instant, exclusive") @QueryParam("until") String until,
                                @Parameter(description = "the next cursor of the previous page") @QueryParam("after") String after,
                                @Parameter(description = "entries per page, 1-" + MAX_LIMIT + " (default " + DEFAULT_LIMIT + ")") @QueryParam("limit") String limit) {
        if (machine != null) {
            Identifiers.machine(machine);
        }
        if (repo != null) {
            Identifiers.repoName(repo);
        }
        String qualified = device == null ? null : CdiName.parse(device).qualified();
        Instant from = instant("since", since);
        Instant to = instant("until", until);
        long cursor = number("after", after, 0, Long.MAX_VALUE, 0);
        int size = (int) number("limit", limit, 1, MAX_LIMIT, DEFAULT_LIMIT);
        return history.page(new HistoryQuery.Filter(machine, repo, qualified, from, to, cursor, size))
                .map(entries -> new AuditPage(entries,
                        entries.size() == size ? Long.toString(entries.get(entries.size() - 1).id()) : null));
    }

    private static Instant instant(String name, String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return Instant.parse(raw.strip());
        } catch (DateTimeParseException e) {
            throw new ApiProblem(ProblemType.INVALID_PARAMETER, name + " \"" + raw + "\" is not an ISO-8601 instant",
                    "write it like 2026-11-29T10:00:00Z", java.util.Map.of("parameter", name));
        }
    }

    private static long number(String name, String raw, long min, long max, long byDefault) {
        if (raw == null || raw.isBlank()) {
            return byDefault;
        }
        try {
            long n = Long.parseLong(raw.strip());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new ApiProblem(ProblemType.INVALID_PARAMETER, name + " \"" + raw + "\" is not a number from " + min + " to " + max,
                "after".equals(name) ? "pass the next value of the previous page"
                        : "ask for 1 to " + MAX_LIMIT + " entries", java.util.Map.of("parameter", name));
    }
}
