package io.rediacc.gpu.inventory.dashboard;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.security.identity.SecurityIdentity;
import io.rediacc.gpu.api.security.Roles;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.identity.RepoRef;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.FleetPage;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.FleetRow;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.MachineView;
import io.rediacc.gpu.inventory.dashboard.DashboardViews.RepoView;
import io.rediacc.gpu.inventory.repository.FleetChanges;
import io.rediacc.gpu.inventory.rest.InvalidParameterException;
import io.rediacc.gpu.inventory.rest.ListParameters;
import io.rediacc.gpu.inventory.service.FleetQueryService;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.sse.OutboundSseEvent;
import jakarta.ws.rs.sse.Sse;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The dashboard's data: HTML fragments rendered from Qute templates (escaped by default) and the live
 * stream of changes. Under {@code /api/v1} with the API's rules: every call needs the viewer role,
 * sent as {@code Authorization: Bearer} — the pages' script sends it from the browser's session
 * storage, for the stream too (a fetch stream, not EventSource, which cannot send headers), so the
 * token never appears in a URL or an access log.
 */
@Path("/api/v1/dashboard")
@Tag(name = "dashboard")
@RolesAllowed(Roles.VIEWER)
public class DashboardApi {

    private static final Set<String> SHOW = Set.of("all", "free", "held");
    private static final int REFUSAL_GROUPS = 200;

    private final DashboardQueries queries;
    private final FleetQueryService fleet;
    private final FleetChanges changes;
    private final ListParameters params;
    private final DashboardConfig config;
    private final Template fleetTemplate;
    private final Template machineTemplate;
    private final Template repoTemplate;
    private final Template refusalsTemplate;

    public DashboardApi(DashboardQueries queries, FleetQueryService fleet, FleetChanges changes, ListParameters params,
                        DashboardConfig config,
                        @Location("dashboard/fleet-fragment.html") Template fleetTemplate,
                        @Location("dashboard/machine-fragment.html") Template machineTemplate,
                        @Location("dashboard/repo-fragment.html") Template repoTemplate,
                        @Location("dashboard/refusals-fragment.html") Template refusalsTemplate) {
        this.queries = queries;
        this.fleet = fleet;
        this.changes = changes;
        this.params = params;
        this.config = config;
        this.fleetTemplate = fleetTemplate;
        this.machineTemplate = machineTemplate;
        this.repoTemplate = repoTemplate;
        this.refusalsTemplate = refusalsTemplate;
    }

    /** Who the token belongs to: the login page's check before it keeps the token. */
    @GET
    @Path("whoami")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "dashboardWhoami", summary = "The caller's principal and roles (the dashboard's login check)")
    public Caller whoami(@Context SecurityIdentity identity) {
        return new Caller(identity.getPrincipal().getName(), identity.getRoles().stream().sorted().toList());
    }

    /** The caller of {@link #whoami}. */
    public record Caller(String principal, List<String> roles) {
    }

    @GET
    @Path("fleet")
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "dashboardFleet", summary = "The fleet view (HTML fragment)")
    public Uni<String> fleet(@QueryParam("vendor") String vendor, @QueryParam("model") String model,
                             @QueryParam("show") String show, @QueryParam("page") String page) {
        String v = blankToNull(params.filter("vendor", vendor));
        String m = blankToNull(params.filter("model", model));
        String s = show == null || show.isBlank() ? "all" : show.strip().toLowerCase(Locale.ROOT);
        if (!SHOW.contains(s)) {
            throw new InvalidParameterException("show=" + show + " is not one of all, free, held",
                    "all: every machine; free: machines with a device no live gate holds exclusively; held: machines with a granted device");
        }
        int p = params.page(page);
        int size = config.fleetPageSize();
        return queries.fleet(v, m, s, p, size, Instant.now()).map(rows -> {
            List<FleetRow> shown = rows.size() > size ? rows.subList(0, size) : rows;
            return fleetTemplate.data("fleet", new FleetPage(shown, p, rows.size() > size, v, m, s)).render();
        });
    }

    @GET
    @Path("machines/{machine}")
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "dashboardMachine", summary = "One machine's view (HTML fragment)")
    public Uni<String> machine(@PathParam("machine") String machine) {
        String name = params.machine(machine);
        // one statement at a time: each query uses its own pool connection, but keep the order readable
        return fleet.machine(name).chain(detail -> queries.latestVersion(name)
                .chain(latest -> queries.refusals(null, name, REFUSAL_GROUPS)
                        .map(refusals -> machineTemplate.data("view", new MachineView(detail, latest, refusals)).render())));
    }

    @GET
    @Path("repos/{repo}")
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "dashboardRepo", summary = "One repo's view (HTML fragment): name@machine shows its grants, "
            + "history and refusals; a bare name lists the machines with a repo of that name")
    public Uni<String> repo(@PathParam("repo") String repo) {
        RepoRef ref = repoRef(repo);
        String name = ref.name();
        String machine = ref.machine();
        if (machine == null) {
            // a name alone is no repo: each machine's repo of that name is another repo, with its own history
            return queries.placements(name, null).map(placements -> repoTemplate.data("view",
                    new RepoView(name, null, placements, List.of(), List.of(), List.of())).render());
        }
        Instant now = Instant.now();
        return queries.placements(name, machine).chain(placements -> queries.grants(name, machine, now)
                .chain(grants -> queries.history(name, machine, config.recentPerRepo())
                        .chain(history -> queries.refusals(name, machine, REFUSAL_GROUPS)
                                .map(refusals -> repoTemplate.data("view",
                                        new RepoView(name, machine, placements, grants, history, refusals)).render()))));
    }

    @GET
    @Path("refusals")
    @Produces(MediaType.TEXT_HTML)
    @Operation(operationId = "dashboardRefusals", summary = "Recent refusals by repo and rule (HTML fragment)")
    public Uni<String> refusals(@QueryParam("repo") String repo) {
        String name = repo == null || repo.isBlank() ? null : repoName(repo);
        return queries.refusals(name, null, REFUSAL_GROUPS)
                .map(groups -> refusalsTemplate.data("groups", groups).data("repo", name).render());
    }

    /**
     * What changed, as server-sent events: {@code ready} once, then {@code <kind>} with the machine as
     * data for each change, and a {@code ping} every {@code dashboard.keepalive} so that idle
     * connections are not closed.
     */
    @GET
    @Path("events")
    @Produces(MediaType.SERVER_SENT_EVENTS)
    @Operation(operationId = "dashboardEvents", summary = "Live changes of inventories, gates, grants and refusals (server-sent events)")
    public Multi<OutboundSseEvent> events(@Context Sse sse) {
        Multi<OutboundSseEvent> ready = Multi.createFrom().item(() -> sse.newEventBuilder().name("ready").data("live").build());
        Multi<OutboundSseEvent> live = changes.stream()
                .map(c -> sse.newEventBuilder().name(c.kind()).data(c.machine()).build());
        Multi<OutboundSseEvent> pings = Multi.createFrom().ticks().every(config.keepalive())
                .map(tick -> sse.newEventBuilder().name("ping").data(Long.toString(tick)).build());
        return Multi.createBy().merging().streams(ready, live, pings);
    }

    private static RepoRef repoRef(String raw) {
        try {
            return RepoRef.parse(raw);
        } catch (InvalidIdentifierException e) {
            throw new InvalidParameterException(e.getMessage(), "name the repo as name@machine, e.g. gpu-a@gpu-host-1");
        }
    }

    private static String repoName(String raw) {
        try {
            return Identifiers.repoName(raw);
        } catch (InvalidIdentifierException e) {
            throw new InvalidParameterException(e.getMessage(), "use the repo's name as the machine's repos manifest names it, e.g. gpu-a");
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.strip();
    }
}
