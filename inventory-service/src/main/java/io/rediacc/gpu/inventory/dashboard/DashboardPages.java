package io.rediacc.gpu.inventory.dashboard;

import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import io.quarkus.qute.TemplateInstance;
import io.rediacc.gpu.contracts.identity.Identifiers;
import jakarta.annotation.security.PermitAll;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * The dashboard's pages: shells without fleet data, open to everyone. Each names the fragment it
 * shows; the page's script fetches it (and the live stream) from {@link DashboardApi} with the viewer
 * token kept in the browser's session storage, and sends a caller without one to the login page.
 */
@Path("/dashboard")
@Produces(MediaType.TEXT_HTML)
@PermitAll
public class DashboardPages {

    private final Template page;
    private final Template login;

    public DashboardPages(@Location("dashboard/page.html") Template page, @Location("dashboard/login.html") Template login) {
        this.page = page;
        this.login = login;
    }

    @GET
    @Operation(hidden = true)
    public TemplateInstance fleet() {
        return page.data("title", "Fleet").data("view", "fleet").data("fragment", "/api/v1/dashboard/fleet").data("machine", null);
    }

    @GET
    @Path("login")
    @Operation(hidden = true)
    public TemplateInstance login() {
        return login.instance();
    }

    @GET
    @Path("machines/{machine}")
    @Operation(hidden = true)
    public TemplateInstance machine(@PathParam("machine") String machine) {
        if (!Identifiers.isMachine(machine)) {
            throw new NotFoundException();
        }
        return page.data("title", "Machine " + machine).data("view", "machine")
                .data("fragment", "/api/v1/dashboard/machines/" + machine).data("machine", machine);
    }

    @GET
    @Path("repos/{repo}")
    @Operation(hidden = true)
    public TemplateInstance repo(@PathParam("repo") String repo) {
        io.rediacc.gpu.contracts.identity.RepoRef ref;
        try {
            ref = io.rediacc.gpu.contracts.identity.RepoRef.parse(repo); // name@machine, or a bare name (its machines)
        } catch (io.rediacc.gpu.contracts.identity.InvalidIdentifierException e) {
            throw new NotFoundException();
        }
        // name@machine changes only with its machine: live updates of other machines leave the page alone
        return page.data("title", "Repo " + repo).data("view", "repo")
                .data("fragment", "/api/v1/dashboard/repos/" + repo).data("machine", ref.machine());
    }

    @GET
    @Path("refusals")
    @Operation(hidden = true)
    public TemplateInstance refusals() {
        return page.data("title", "Refusals").data("view", "refusals").data("fragment", "/api/v1/dashboard/refusals")
                .data("machine", null);
    }
}
