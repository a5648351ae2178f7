package io.rediacc.gpu.cli.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.client.GrantViews.AuditEntry;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;
import io.rediacc.gpu.cli.output.Table;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code rdc audit}: the history of grants, revokes, expiries and refusals (grant-service's record). */
public class AuditCommand implements Callable<Integer> {

    private static final Pattern AGO = Pattern.compile("(\\d{1,6})([smhd])");
    private static final int PAGE = 500;

    private final OptionSpec machine = Commands.option("--machine", "<machine>", String.class, "Only this machine");
    private final OptionSpec repo = Commands.option("--repo", "<repo>", String.class, "Only this repo name");
    private final OptionSpec device = Commands.option("--device", "<cdi-name>", String.class, "Only this CDI name");
    private final OptionSpec since = Commands.option("--since", "<when>", String.class,
            "From this long ago (30m, 24h, 7d) or this ISO-8601 instant");
    private final OptionSpec until = Commands.option("--until", "<when>", String.class, "Before this long ago or this instant");
    private final OptionSpec limit = OptionSpec.builder("--limit").paramLabel("<n>").type(int.class).defaultValue("1000")
            .description("At most this many entries (default: ${DEFAULT-VALUE})").build();
    private CommandSpec spec;

    private AuditCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        AuditCommand command = new AuditCommand();
        command.spec = Commands.command(command, "audit",
                        new String[]{"Every grant, revoke, expiry and refusal, oldest first, with who, what, the outcome and the "
                                + "reason given. Reads every page of grant-service's GET /api/v1/audit up to --limit entries."},
                        "  rdc audit --since 24h",
                        "  rdc audit --machine gpu-host-1 --repo train-a",
                        "  rdc audit --device nvidia.com/gpu=0 --since 2026-11-29T00:00:00Z -o json")
                .addOption(command.machine).addOption(command.repo).addOption(command.device).addOption(command.since)
                .addOption(command.until).addOption(command.limit);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        String machine = this.machine.getValue();
        String repo = this.repo.getValue();
        String since = this.since.getValue();
        int limit = this.limit.getValue();
        String device = validate(machine, repo, this.device.getValue(), limit);
        Instant now = Instant.now();
        Instant from = when("--since", since, now);
        Instant to = when("--until", until.getValue(), now);
        ArrayNode entries = Json.mapper().createArrayNode();
        String after = null;
        do {
            int page = Math.min(PAGE, limit - entries.size());
            JsonNode answer = session.grants().audit(machine, repo, device, from, to, after, page).orFail().json();
            answer.path("entries").forEach(entries::add);
            after = answer.path("next").isTextual() ? answer.path("next").asText() : null;
        } while (after != null && entries.size() < limit);
        boolean more = after != null;
        return session.show(entries, out -> table(session, entries, more, since, out));
    }

    private static void table(Session session, ArrayNode entries, boolean more, String since, java.io.PrintWriter out) {
        if (entries.isEmpty()) {
            out.println("no audit entries" + (since == null ? "" : " since " + since) + ".");
        } else {
            Table table = session.table("AT", "EVENT", "MACHINE", "REPO", "DEVICE", "EXCLUSIVE", "ACTOR", "REASON");
            for (JsonNode node : entries) {
                AuditEntry e = Json.mapper().convertValue(node, AuditEntry.class);
                table.row(e.at(), e.event(), e.machine(), e.repo(), e.device(), e.exclusive() ? "yes" : "no", e.actor(),
                        reason(e));
            }
            table.print(out);
        }
        if (more) {
            out.println("(first " + entries.size() + " entries; narrow the filters or raise --limit for more)");
        }
    }

    /** The operator's reason, and the service's (a refusal, an expiry, a removal) after it. */
    private static String reason(AuditEntry e) {
        if (e.requestReason() != null && e.reason() != null) {
            return e.requestReason() + "; " + e.reason();
        }
        return e.requestReason() != null ? e.requestReason() : e.reason() != null ? e.reason() : "-";
    }

    /** Checks the filters with the contracts' rules; the device as grant-service records it (or null). */
    private static String validate(String machine, String repo, String device, int limit) {
        if (limit < 1) {
            throw Failure.usage("--limit " + limit + " must be at least 1");
        }
        try {
            if (machine != null) {
                Identifiers.machine(machine);
            }
            if (repo != null) {
                Identifiers.repoName(repo);
            }
            return device == null ? null : CdiName.parse(device).qualified();
        } catch (InvalidIdentifierException | InvalidCdiNameException e) {
            throw Failure.usage(e.getMessage());
        }
    }

    static Instant when(String option, String raw, Instant now) {
        if (raw == null) {
            return null;
        }
        Matcher m = AGO.matcher(raw.strip());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return now.minus(d);
        }
        try {
            return Instant.parse(raw.strip());
        } catch (DateTimeParseException e) {
            throw Failure.usage(option + " " + raw + " is neither a duration (30m, 24h, 7d) nor an ISO-8601 instant "
                    + "(2026-11-29T10:00:00Z)");
        }
    }
}
