package io.rediacc.gpu.cli.machine.setup;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.machine.MachineGpuListCommand;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Waits until inventory-service holds an inventory at least as new as the one this setup wrote and
 * every gate of the machine reports synced and live (and its daemons verified), then prints the
 * machine's GPU table. {@code --wait 0} skips it.
 */
final class FleetStep implements SetupStep {

    @Override
    public void run(SetupRun run) {
        String name = run.machine();
        Duration waitFor = run.waitFor();
        if (waitFor.isZero()) {
            run.progress("fleet: not waiting (--wait 0); rdc machine gpu list " + name + " shows it once published");
            return;
        }
        Session session = run.session();
        run.progress("fleet: waiting up to " + waitFor.toSeconds() + " s for inventory-service and the gates of " + name);
        long deadline = System.nanoTime() + waitFor.toNanos();
        String missing = "inventory-service has not answered";
        while (true) {
            try {
                Reply r = session.inventory().machine(name);
                if (r.status() == 404) {
                    missing = "inventory-service has no inventory of " + name + " yet (is node-agent running there?)";
                } else if (!r.ok()) {
                    throw r.failure();
                } else {
                    missing = notReady(r.json(), run.inventoryGeneratedAt, run.repos > 0);
                    if (missing == null) {
                        run.progress("fleet: inventory received, every gate synced");
                        break;
                    }
                }
            } catch (Failure f) {
                if (f.exitCode() != ExitCodes.ERROR) {
                    throw f;
                }
                missing = f.getMessage();
            }
            if (System.nanoTime() > deadline) {
                throw new Failure(ExitCodes.NOT_ENFORCED, "the fleet does not see " + name + " ready after " + waitFor.toSeconds()
                        + " s: " + missing + "; check the services on the machine (journalctl -u node-agent -u docker-gate)"
                        + " and run rdc machine setup " + name + " again");
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure(ExitCodes.ERROR, "interrupted");
            }
        }
        session.out().println();
        MachineGpuListCommand.show(session, name);
    }

    /** Null when ready; otherwise what is still missing. */
    static String notReady(JsonNode detail, Instant generatedAt, boolean expectGates) {
        if (generatedAt != null) {
            Instant seen = Instant.parse(detail.path("generatedAt").asText("1970-01-01T00:00:00Z"));
            if (seen.isBefore(generatedAt)) {
                return "inventory-service still has the inventory of " + seen + ", older than this setup's (" + generatedAt + ")";
            }
        }
        JsonNode gates = detail.path("gates");
        if (expectGates && gates.isEmpty()) {
            return "no gate of the machine has reported yet (is docker-gate running there?)";
        }
        List<String> behind = new ArrayList<>();
        for (JsonNode g : gates) {
            boolean synced = "synced".equals(g.path("state").asText()) && g.path("live").asBoolean(false);
            // daemons verified: reported by gates that check each repo daemon (absent in older gates)
            boolean daemonsOk = !g.has("daemonsVerified") || g.path("daemonsVerified").asBoolean(false);
            if (!synced || !daemonsOk) {
                behind.add(g.path("gateId").asText() + " (" + g.path("state").asText() + (g.path("live").asBoolean() ? "" : ", not live")
                        + (daemonsOk ? "" : ", daemons not verified") + ")");
            }
        }
        return behind.isEmpty() ? null : "gate(s) not ready: " + String.join(", ", behind);
    }
}
