package io.rediacc.gpu.cli.machine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.output.Ages;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;
import io.rediacc.gpu.cli.output.Table;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code rdc machine list}. */
public class MachineListCommand implements Callable<Integer> {

    /** Pages of this size when rdc collects the whole fleet. */
    static final int ALL_PAGE_SIZE = 500;
    /** A bound on the pages collected, so a misbehaving server cannot keep rdc looping. */
    static final int MAX_PAGES = 1000;

    private final OptionSpec vendor = Commands.option("--vendor", "<vendor>", String.class,
            "Only machines with a GPU of this vendor (nvidia, amd, intel)");
    private final OptionSpec product = Commands.option("--product", "<text>", String.class,
            "Only machines with a GPU whose name contains this text");
    private final OptionSpec free = Commands.flag("--free", "Only machines with a CDI device nobody holds exclusively");
    private final OptionSpec page = Commands.option("--page", "<n>", Integer.class, "Only this page (from 0)");
    private final OptionSpec size = Commands.option("--size", "<n>", Integer.class, "Page size with --page (1-500, default 50)");
    private CommandSpec spec;

    private MachineListCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        MachineListCommand command = new MachineListCommand();
        command.spec = Commands.command(command, "list",
                        new String[]{"The machines of the fleet: platform, GPU count, the age of its last inventory publication (HEARTBEAT: the node-agent publishes on a heartbeat), and whether the inventory is "
                                + "stale (older than 3 heartbeats). Every page unless --page is given."},
                        "  rdc machine list",
                        "  rdc machine list --vendor nvidia --product A100",
                        "  rdc machine list --free -o json",
                        "  rdc machine list --page 0 --size 20")
                .addOption(command.vendor).addOption(command.product).addOption(command.free).addOption(command.page)
                .addOption(command.size);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        Integer page = this.page.getValue();
        Integer size = this.size.getValue();
        if (page != null && page < 0) {
            throw Failure.usage("--page must be 0 or more");
        }
        if (size != null && (size < 1 || size > ALL_PAGE_SIZE)) {
            throw Failure.usage("--size must be between 1 and " + ALL_PAGE_SIZE);
        }
        // one page as the service answered it, or every page gathered into {"items": [...], "total": N}
        JsonNode document = page != null
                ? session.inventory().machines(query(page, size == null ? 50 : size)).orFail().json()
                : collectAll(session);
        List<JsonNode> items = new ArrayList<>();
        document.path("items").forEach(items::add);
        long total = document.path("total").asLong();
        return session.show(document, out -> table(session, items, total, out));
    }

    private void table(Session session, List<JsonNode> items, long total, java.io.PrintWriter out) {
        if (items.isEmpty()) {
            out.println(total == 0 ? "No machines match." : "No machines on this page (" + total + " in all).");
            return;
        }
        Table table = session.table("MACHINE", "PLATFORM", "GPUS", "HEARTBEAT", "STALE", "AGENT");
        // read from the tree (a MachineSummary's fields): no record deserializer to build, which is most
        // of what Jackson costs a short-lived command
        for (JsonNode item : items) {
            table.row(text(item, "machine"), text(item, "platform"), item.path("gpuCount").asInt(),
                    Ages.of(item.path("ageSeconds").asLong()), item.path("stale").asBoolean() ? "yes" : "no",
                    text(item, "agentVersion"));
        }
        table.print(out);
        Integer page = this.page.getValue();
        if (page != null && total > items.size()) {
            out.println("(page " + page + ", " + items.size() + " of " + total + " machines)");
        }
    }

    private JsonNode collectAll(Session session) {
        // a node factory, not the events' mapper: building that mapper (records, ISO times) for one empty node
        // cost machine list a sixth of its start-up
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        ArrayNode items = document.putArray("items");
        long total = 0;
        for (int p = 0; p < MAX_PAGES; p++) {
            // a MachinePage, read from the tree
            JsonNode answer = session.inventory().machines(query(p, ALL_PAGE_SIZE)).orFail().json();
            JsonNode pageItems = answer.path("items");
            pageItems.forEach(items::add);
            total = answer.path("total").asLong();
            if (pageItems.isEmpty() || items.size() >= total) {
                break;
            }
        }
        document.put("total", total);
        return document;
    }

    private static String text(JsonNode item, String field) {
        JsonNode v = item.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private String query(int p, int s) {
        StringBuilder q = new StringBuilder("?page=").append(p).append("&size=").append(s);
        String vendor = this.vendor.getValue();
        String product = this.product.getValue();
        if (vendor != null) {
            q.append("&vendor=").append(URLEncoder.encode(vendor, StandardCharsets.UTF_8));
        }
        if (product != null) {
            q.append("&product=").append(URLEncoder.encode(product, StandardCharsets.UTF_8));
        }
        if (Commands.isSet(free)) {
            q.append("&freeDevices=true");
        }
        return q.toString();
    }
}
