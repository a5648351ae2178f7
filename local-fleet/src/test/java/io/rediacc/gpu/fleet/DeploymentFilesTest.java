package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.Topics;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The deployment files (docker-compose.yml, deploy/kubernetes, deploy/systemd) cannot be started
 * here, so this checks them against the services themselves: every environment variable must set a
 * configuration key the service really has, every port must be the one the service listens on,
 * and the topics must be the contracts' topics with their cleanup policies.
 */
class DeploymentFilesTest {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Pattern KEY = Pattern.compile("^#?\\s*(%[a-z]+\\.)?([a-z][a-zA-Z0-9.\"_-]*)\\s*=\\s*(.*)$");

    /** The keys a service's application.properties sets or documents (commented {@code # key=}), plus its port. */
    static Map<String, String> config(String module) throws IOException {
        Map<String, String> keys = new java.util.HashMap<>();
        for (String line : Files.readAllLines(REPO.resolve(module).resolve("src/main/resources/application.properties"))) {
            Matcher m = KEY.matcher(line.trim());
            if (m.matches() && m.group(1) == null) {
                keys.putIfAbsent(m.group(2), m.group(3).trim());
            }
        }
        return keys;
    }

    /** Quarkus' environment-variable form of a key: non-alphanumerics become '_', upper case. */
    static String envForm(String key) {
        return key.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    static void assertEnvSetsRealKeys(String module, Set<String> envNames) throws IOException {
        Set<String> known = new HashSet<>();
        config(module).keySet().forEach(k -> known.add(envForm(k)));
        for (String env : envNames) {
            assertThat(known).as("%s: environment variable %s must set a key of %s/src/main/resources/application.properties",
                    module, env, module).contains(env);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> yaml(Path file) throws IOException {
        return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
    }

    static List<Map<String, Object>> yamlDocuments(Path file) throws IOException {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object d : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(Files.readString(file))) {
            if (d != null) {
                @SuppressWarnings("unchecked") Map<String, Object> m = (Map<String, Object>) d;
                docs.add(m);
            }
        }
        return docs;
    }

    @Test
    @SuppressWarnings("unchecked")
    void composeSetsOnlyRealConfigKeysAndTheServicesOwnPorts() throws IOException {
        Map<String, Object> services = (Map<String, Object>) yaml(REPO.resolve("docker-compose.yml")).get("services");
        for (String module : List.of("grant-service", "inventory-service", "node-agent", "docker-gate")) {
            Map<String, Object> svc = (Map<String, Object>) services.get(module);
            assertThat(svc).as("compose service " + module).isNotNull();
            Map<String, Object> build = (Map<String, Object>) svc.get("build");
            assertThat(REPO.resolve((String) build.get("context")).resolve((String) build.get("dockerfile"))).exists();
            Map<String, Object> env = (Map<String, Object>) svc.get("environment");
            assertEnvSetsRealKeys(module, env.keySet());
            Object port = env.get("QUARKUS_HTTP_PORT");
            if (port != null) {
                assertThat(config(module).get("quarkus.http.port")).as(module + " port").isEqualTo(port.toString());
                // published on the loopback only: the services sit behind a gateway, never on every interface
                assertThat((List<String>) svc.get("ports")).contains("127.0.0.1:" + port + ":" + port);
            }
            Object management = env.get("QUARKUS_MANAGEMENT_PORT");
            if (config(module).containsKey("quarkus.management.port")) {
                // /q/metrics lives on the management port: compose publishes it (on the loopback) as the service sets it
                assertThat(management).as(module + " QUARKUS_MANAGEMENT_PORT").isNotNull();
                assertThat(management.toString()).isEqualTo(config(module).get("quarkus.management.port"));
                assertThat((List<String>) svc.get("ports")).contains("127.0.0.1:" + management + ":" + management);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void composeCreatesTheContractsTopicsWithTheirCleanupPolicies() throws IOException {
        Map<String, Object> services = (Map<String, Object>) yaml(REPO.resolve("docker-compose.yml")).get("services");
        String script = String.join("\n", (List<String>) ((Map<String, Object>) services.get("kafka-topics")).get("command"));
        for (Topics.TopicSpec t : Topics.ALL) {
            assertThat(script).contains(t.name() + ":" + t.cleanupPolicy());
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void kubernetesTopicsAreTheContractsTopics() throws IOException {
        Map<String, String> policies = new java.util.HashMap<>();
        for (Map<String, Object> doc : yamlDocuments(REPO.resolve("deploy/kubernetes/kafka-topics.yaml"))) {
            assertThat(doc.get("kind")).isEqualTo("KafkaTopic");
            Map<String, Object> spec = (Map<String, Object>) doc.get("spec");
            policies.put((String) spec.get("topicName"), (String) ((Map<String, Object>) spec.get("config")).get("cleanup.policy"));
        }
        Map<String, String> expected = new java.util.HashMap<>();
        Topics.ALL.forEach(t -> expected.put(t.name(), t.cleanupPolicy()));
        assertThat(policies).isEqualTo(expected);
    }

    @Test
    @SuppressWarnings("unchecked")
    void kubernetesDeploymentsProbeHealthOnTheServicesPortsAndSetRealKeys() throws IOException {
        Map<String, Object> kustomization = yaml(REPO.resolve("deploy/kubernetes/kustomization.yaml"));
        for (String resource : (List<String>) kustomization.get("resources")) {
            assertThat(REPO.resolve("deploy/kubernetes").resolve(resource)).as("kustomization resource").exists();
        }
        for (String module : List.of("grant-service", "inventory-service")) {
            Map<String, Object> deployment = yamlDocuments(REPO.resolve("deploy/kubernetes/" + module + ".yaml")).stream()
                    .filter(d -> "Deployment".equals(d.get("kind"))).findFirst().orElseThrow();
            Map<String, Object> pod = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) deployment.get("spec"))
                    .get("template")).get("spec");
            Map<String, Object> container = ((List<Map<String, Object>>) pod.get("containers")).get(0);
            int port = (Integer) ((List<Map<String, Object>>) container.get("ports")).get(0).get("containerPort");
            assertThat(Integer.toString(port)).isEqualTo(config(module).get("quarkus.http.port"));
            // metrics: the container's "management" port is the service's quarkus.management.port, and what Prometheus scrapes
            String management = config(module).get("quarkus.management.port");
            assertThat(((List<Map<String, Object>>) container.get("ports")).stream()
                    .filter(p -> "management".equals(p.get("name"))).map(p -> p.get("containerPort").toString()))
                    .as(module + " container port named management").containsExactly(management);
            Map<String, Object> podMeta = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) deployment.get("spec"))
                    .get("template")).get("metadata");
            assertThat(((Map<String, Object>) podMeta.get("annotations")).get("prometheus.io/port")).isEqualTo(management);
            for (String probe : List.of("readinessProbe", "livenessProbe", "startupProbe")) {
                Map<String, Object> http = (Map<String, Object>) ((Map<String, Object>) container.get(probe)).get("httpGet");
                assertThat((String) http.get("path")).startsWith("/q/health/");
            }
            Set<String> env = new HashSet<>();
            for (Map<String, Object> e : (List<Map<String, Object>>) container.get("env")) {
                String name = (String) e.get("name");
                if (!name.startsWith("KAFKA_") || name.equals("KAFKA_BOOTSTRAP_SERVERS")) {
                    env.add(name); // other kafka.* client settings pass straight to the Kafka clients
                }
            }
            assertEnvSetsRealKeys(module, env);
        }
    }

    @Test
    void systemdUnitsRunTheAgentsRealCommands() throws IOException {
        String setup = Files.readString(REPO.resolve("deploy/systemd/node-agent-setup.service"));
        String run = Files.readString(REPO.resolve("deploy/systemd/node-agent.service"));
        String agentCommands = Files.readString(REPO.resolve("node-agent/src/main/java/io/rediacc/gpu/agent/cli/SetupCommand.java"))
                + Files.readString(REPO.resolve("node-agent/src/main/java/io/rediacc/gpu/agent/cli/RunCommand.java"))
                // setup's and prepare's --install-nvidia-toolkit is a shared picocli mixin
                + Files.readString(REPO.resolve("node-agent/src/main/java/io/rediacc/gpu/agent/cli/ToolkitOption.java"));
        assertThat(setup).contains("node-agent setup --install-nvidia-toolkit");
        assertThat(agentCommands).contains("name = \"setup\"").contains("name = \"run\"").contains("--install-nvidia-toolkit");
        assertThat(run).contains("node-agent run");
        assertThat(Files.readString(REPO.resolve("deploy/systemd/docker-gate.service"))).contains("StateDirectory=rediacc/gate");
    }

    @Test
    void theBootTimeSetupRepeatsTheChoicePrepareSavesAndARefusalDoesNotStopPublishing() throws IOException {
        String setup = Files.readString(REPO.resolve("deploy/systemd/node-agent-setup.service"));
        String saved = Files.readString(REPO.resolve("node-agent/src/main/java/io/rediacc/gpu/agent/machine/SavedToolkitChoice.java"));
        String hostRoot = Files.readString(REPO.resolve("node-agent/src/main/java/io/rediacc/gpu/agent/host/HostRoot.java"));
        // prepare writes INSTALL_NVIDIA_TOOLKIT into node-agent.env; the unit reads that file and passes the variable
        assertThat(saved).contains("KEY = \"INSTALL_NVIDIA_TOOLKIT\"").contains("HostRoot.AGENT_ENV");
        assertThat(hostRoot).contains("AGENT_ENV = \"/etc/rediacc/gpu/node-agent.env\"");
        assertThat(setup).contains("EnvironmentFile=-/etc/rediacc/gpu/node-agent.env")
                .contains("node-agent setup --install-nvidia-toolkit ${INSTALL_NVIDIA_TOOLKIT}");
        // a boot that refused to orphan a grant fails its own unit only: the agent publishes the inventory it kept
        String run = Files.readString(REPO.resolve("deploy/systemd/node-agent.service"));
        assertThat(run).contains("Wants=node-agent-setup.service").doesNotContain("Requires=node-agent-setup.service");
    }
}
