package io.rediacc.gpu.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.contracts.events.EventJson;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/monitoring: the PrometheusRule loads in Prometheus's own checker ({@code promtool check rules},
 * Debian's prometheus package) and its alerts fire as their unit tests say ({@code promtool test rules});
 * the rules and the Grafana dashboard use only product series the services export
 * ({@code exported-metrics.txt}, which SeedStoryIT compares with a scrape of a running fleet).
 */
class MonitoringFilesTest {

    static final Path MONITORING = DeploymentFilesTest.REPO.resolve("deploy/monitoring");
    static final Path WORK = Path.of("target/monitoring").toAbsolutePath();
    /** A series of ours: the product's prefixes and the HTTP server histogram. */
    static final Pattern PRODUCT_SERIES = Pattern.compile("\\b((?:grants|gate|inventory)_[a-z0-9_]+|http_server_requests_seconds_[a-z]+)\\b");

    @Test
    void promtoolAcceptsTheRulesAndTheirUnitTestsPass() throws Exception {
        Files.createDirectories(WORK);
        Files.writeString(WORK.resolve("rules.yaml"), rulesFile());
        Files.copy(MONITORING.resolve("alerts.test.yaml"), WORK.resolve("alerts.test.yaml"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        String check = promtool("check", "rules", "rules.yaml");
        assertThat(check).contains("SUCCESS: " + alerts().size() + " rules found");
        String test = promtool("test", "rules", "alerts.test.yaml");
        assertThat(test).contains("SUCCESS");
    }

    @Test
    void theRulesAlertOnWhatOperatorsMustKnow() throws IOException {
        assertThat(alerts().keySet()).contains("GpuMachineInventoryStale", "GpuGateNotSynced", "GpuGateLaggingGrants",
                "GpuGrantOutboxBacklog", "GpuGrantOutboxParked", "GpuGrantsNotYetEnforced", "GpuGateRefusalSpike",
                "GpuGateDaemonUnverified");
        assertThat(alerts().get("GpuGateRefusalSpike")).contains("by (repo)");
        for (Map<String, Object> rule : rules()) {
            assertThat(rule).as(rule.get("alert").toString()).containsKeys("expr", "for", "labels", "annotations");
            assertThat(((Map<?, ?>) rule.get("labels")).get("severity")).isIn("warning", "critical");
        }
    }

    @Test
    void rulesAndDashboardUseOnlyExportedSeries() throws IOException {
        Set<String> exported = exportedMetrics();
        Set<String> used = new LinkedHashSet<>();
        alerts().values().forEach(expr -> used.addAll(series(expr)));
        List<String> dashboardExprs = dashboardExpressions();
        assertThat(dashboardExprs).hasSizeGreaterThan(15);
        dashboardExprs.forEach(expr -> used.addAll(series(expr)));
        assertThat(used).as("series used by the rules and the dashboard").isNotEmpty().isSubsetOf(exported);
        // and the dashboard shows the four views it promises
        JsonNode dashboard = EventJson.mapper().readTree(MONITORING.resolve("grafana-dashboard.json").toFile());
        List<String> rows = new ArrayList<>();
        dashboard.path("panels").forEach(p -> {
            if ("row".equals(p.path("type").asText())) {
                rows.add(p.path("title").asText());
            }
        });
        assertThat(rows).containsExactly("Fleet", "Grants", "Gates", "Refusals");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theServiceMonitorScrapesThePortTheServicesExposeForMetrics() throws IOException {
        Map<String, Object> monitor = DeploymentFilesTest.yaml(MONITORING.resolve("servicemonitor.yaml"));
        Map<String, Object> endpoint = ((List<Map<String, Object>>) ((Map<String, Object>) monitor.get("spec")).get("endpoints")).get(0);
        assertThat(endpoint).containsEntry("port", "management").containsEntry("path", "/q/metrics");
        for (String module : List.of("grant-service", "inventory-service")) {
            Map<String, Object> service = DeploymentFilesTest.yamlDocuments(DeploymentFilesTest.REPO.resolve("deploy/kubernetes/" + module + ".yaml"))
                    .stream().filter(d -> "Service".equals(d.get("kind"))).findFirst().orElseThrow();
            List<Map<String, Object>> ports = (List<Map<String, Object>>) ((Map<String, Object>) service.get("spec")).get("ports");
            assertThat(ports).as(module + " Service").anySatisfy(p -> {
                assertThat(p.get("name")).isEqualTo("management");
                assertThat(p.get("port").toString()).isEqualTo(DeploymentFilesTest.config(module).get("quarkus.management.port"));
            });
        }
        Map<String, Object> kustomization = DeploymentFilesTest.yaml(MONITORING.resolve("kustomization.yaml"));
        for (String resource : (List<String>) kustomization.get("resources")) {
            assertThat(MONITORING.resolve(resource)).exists();
        }
    }

    // --- helpers --------------------------------------------------------------------------------

    /** Every series listed, those marked {@value #ON_FIRST_EVENT} included. */
    static Set<String> exportedMetrics() throws IOException {
        return listed(true);
    }

    /** The series a running fleet exports from its start (not those that appear on their first event). */
    static Set<String> exportedFromStart() throws IOException {
        return listed(false);
    }

    /** Marks a counter that exists once its first event happened (a tag value such as a drop reason). */
    static final String ON_FIRST_EVENT = "(on first event)";

    private static Set<String> listed(boolean withEventOnly) throws IOException {
        Set<String> names = new LinkedHashSet<>();
        for (String line : Files.readAllLines(MONITORING.resolve("exported-metrics.txt"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                boolean eventOnly = line.contains(ON_FIRST_EVENT);
                if (withEventOnly || !eventOnly) {
                    names.add(line.replace(ON_FIRST_EVENT, "").trim());
                }
            }
        }
        return names;
    }

    static Set<String> series(String expr) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = PRODUCT_SERIES.matcher(expr.replaceAll("\\{[^}]*}", "{}")); // label values are not series
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules() throws IOException {
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : groups()) {
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    static Map<String, String> alerts() throws IOException {
        Map<String, String> alerts = new java.util.LinkedHashMap<>();
        for (Map<String, Object> rule : rules()) {
            alerts.put((String) rule.get("alert"), String.valueOf(rule.get("expr")));
        }
        return alerts;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> groups() throws IOException {
        Map<String, Object> rule = DeploymentFilesTest.yaml(MONITORING.resolve("prometheus-rule.yaml"));
        assertThat(rule).containsEntry("kind", "PrometheusRule");
        return (List<Map<String, Object>>) ((Map<String, Object>) rule.get("spec")).get("groups");
    }

    /** The PrometheusRule's {@code spec} as the plain rules file Prometheus (and promtool) read. */
    static String rulesFile() throws IOException {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        return new Yaml(options).dump(Map.of("groups", groups()));
    }

    static List<String> dashboardExpressions() throws IOException {
        JsonNode dashboard = EventJson.mapper().readTree(MONITORING.resolve("grafana-dashboard.json").toFile());
        List<String> exprs = new ArrayList<>();
        dashboard.findValues("targets").forEach(targets -> targets.forEach(t -> exprs.add(t.path("expr").asText())));
        return exprs;
    }

    static String promtool(String... args) throws IOException, InterruptedException {
        Path promtool = Path.of("/usr/bin/promtool");
        assertThat(promtool).as("promtool (Debian: apt-get install prometheus) checks the rules").isExecutable();
        List<String> command = new ArrayList<>(List.of(promtool.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("promtool " + String.join(" ", args) + ":\n" + out).isZero();
        return out;
    }
}
