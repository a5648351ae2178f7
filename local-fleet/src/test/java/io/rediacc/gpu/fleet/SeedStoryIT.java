package io.rediacc.gpu.fleet;

import io.rediacc.gpu.fleet.SharedFleet.Result;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seed's story, end to end, on a running local fleet ({@code ./fleet up}), driven the way an
 * operator and a developer drive it: the real {@code docker} CLI and compose plugin through the
 * gate, in front of real dockerd (module real-dockerd; the test fails, never skips, where they
 * cannot run), and {@code rdc}. What a container was given shows in it: the image's
 * {@code nvidia-smi -L} lists the {@code /dev/nvidia<N>} nodes CDI injected.
 * No sleeps between a grant and the next {@code docker run}: "takes effect from the next request".
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Execution(ExecutionMode.SAME_THREAD) // one after another on SharedFleet's fleet, in @Order; other ITs run beside them
@Order(3) // last on the README session's fleet (SharedFleet): its story starts with every grant revoked, and it stops the fleet
class SeedStoryIT {

    static final Path STATE = SharedFleet.STATE;
    static final String MACHINE = SharedFleet.MACHINE;
    static SharedFleet fleet;
    static Map<String, String> env;

    @BeforeAll
    static void startFleet() throws Exception {
        fleet = SharedFleet.get();
        env = fleet.env;
        fleet.revokeEveryGrant();
        assertThat(Files.readString(SharedFleet.LOG)).contains("fleet ready");
    }

    @AfterAll
    static void stopFleet() throws Exception {
        SharedFleet.stop();
        // the fleet stopped its real daemons: no process of theirs and no mount under the state is left
        String state = STATE.toString();
        List<String> execRoots = SharedFleet.REPOS.stream()
                .map(r -> io.rediacc.gpu.dockerd.Dockerd.execRootFor(STATE.resolve("machine/dockerd").resolve(r)).toString()).toList();
        assertThat(ProcessHandle.allProcesses().filter(h -> {
            String cmd = h.info().commandLine().orElse("");
            return cmd.contains(state) || execRoots.stream().anyMatch(cmd::contains);
        }).map(h -> h.pid() + " " + h.info().commandLine().orElse(""))).isEmpty();
        assertThat(Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().filter(l -> l.contains(state))).isEmpty();
    }

    @Test
    @Order(1)
    void fleetEnvNamesEveryServiceAndRepo() throws Exception {
        assertThat(env).containsKeys("RDC_GRANT_URL", "RDC_INVENTORY_URL", "RDC_TOKEN", "RDC", "FLEET_MACHINE",
                "DOCKER_HOST_GPU_A", "DOCKER_HOST_GPU_A_FORK", "DOCKER_CONFIG");
        assertThat(env.get("DOCKER_HOST_GPU_A")).startsWith("unix://");
        assertThat(env.get("FLEET_DAEMONS")).as(Files.readString(SharedFleet.LOG)).isEqualTo("real");
    }

    /**
     * Issue 31, one Kafka identity per machine: the seeded machine's node-agent and docker-gate were started with the
     * login rdc machine setup wrote to its {@code kafka.env} (their units' EnvironmentFile), the machine's own principal
     * {@code machine-<name>}, and the broker holds that user with exactly a machine's ACLs (contracts KafkaAcls: its
     * own records on the topics a machine writes, the topics and groups it reads), so one host cannot write as
     * another or as a service. Read through the broker's admin API as its super user.
     */
    @Test
    @Order(2)
    void theMachinesComponentsLogInToKafkaAsTheMachinesOwnUserWithExactlyAMachinesAcls() throws Exception {
        String principal = io.rediacc.gpu.contracts.kafka.KafkaAccess.machinePrincipal(MACHINE);
        var login = io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.parse(Files.readString(STATE.resolve("machine/root")
                .resolve(io.rediacc.gpu.contracts.kafka.MachineKafkaEnv.PATH.substring(1)))).orElseThrow();
        assertThat(login.username()).isEqualTo(principal);
        for (String module : List.of("node-agent", "docker-gate")) {
            List<String> running = ProcessHandle.allProcesses().map(h -> h.info().commandLine().orElse(""))
                    .filter(cmd -> cmd.contains(module + "/target/quarkus-app/quarkus-run.jar") && cmd.contains(STATE.toString()))
                    .toList();
            assertThat(running).as(module + " of the fleet").hasSize(1);
            assertThat(running.get(0)).as(module + "'s Kafka login")
                    .contains("-Dkafka.sasl.jaas.config=" + io.rediacc.gpu.contracts.kafka.KafkaAccess.jaasConfig(principal, login.password()))
                    .containsOnlyOnce("username=");
        }
        String adminPassword = Files.readAllLines(STATE.resolve("kafka/admin.password")).stream()
                .filter(l -> l.startsWith("admin=")).map(l -> l.substring("admin=".length()).strip()).findFirst().orElseThrow();
        Map<String, Object> admin = Map.of("bootstrap.servers", env.get("KAFKA_BOOTSTRAP_SERVERS"),
                "security.protocol", env.get("KAFKA_SECURITY_PROTOCOL"), "sasl.mechanism", env.get("KAFKA_SASL_MECHANISM"),
                "sasl.jaas.config", io.rediacc.gpu.contracts.kafka.KafkaAccess.jaasConfig("admin", adminPassword));
        try (org.apache.kafka.clients.admin.Admin a = org.apache.kafka.clients.admin.Admin.create(admin)) {
            assertThat(a.describeUserScramCredentials().users().get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("the broker's SCRAM users").contains(principal);
            var acls = a.describeAcls(new org.apache.kafka.common.acl.AclBindingFilter(
                    org.apache.kafka.common.resource.ResourcePatternFilter.ANY,
                    new org.apache.kafka.common.acl.AccessControlEntryFilter("User:" + principal, null,
                            org.apache.kafka.common.acl.AclOperation.ANY, org.apache.kafka.common.acl.AclPermissionType.ANY)))
                    .values().get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(acls).as("the ACLs of " + principal).containsExactlyInAnyOrderElementsOf(
                    io.rediacc.gpu.contracts.kafka.KafkaAcls.bindings(principal, io.rediacc.gpu.contracts.kafka.KafkaAccess.Role.MACHINE, MACHINE));
        }
    }

    @Test
    @Order(2)
    void dockerInfoThroughTheGateShowsTheRealDaemonAndTheMachinesCdiDirectory() throws Exception {
        Result info = docker("GPU_A", "info", "--format", "{{.ServerVersion}} {{json .CDISpecDirs}}");
        assertThat(info.exit()).as(info.all()).isZero();
        assertThat(info.out()).matches("(?s)\\d+\\.\\d+\\.\\d+.*")
                .contains(STATE.resolve("machine/root/etc/cdi").toString());
        Result ps = docker("GPU_A", "ps", "-a");
        assertThat(ps.exit()).as(ps.all()).isZero();
        assertThat(ps.out()).startsWith("CONTAINER ID");
    }

    @Test
    @Order(3)
    void gpuListShowsTheGpusAndEveryGrantableName() throws Exception {
        Result r = rdc("machine", "gpu", "list", MACHINE);
        assertThat(r.exit()).as(r.all()).isZero();
        // vendor, then index: the AMD card 0 before the NVIDIA cards 0 and 1
        assertThat(r.out()).startsWith("VENDOR  GPU").containsSubsequence("amd     0", "nvidia  0", "nvidia  1");
        assertThat(r.out()).contains("nvidia.com/gpu=all", "nvidia.com/gpu=0", "nvidia.com/gpu=1",
                "rediacc.io/amd=gpu0", "rediacc.io/amd=all", "rediacc.io/dri=renderD128");
        Result json = rdc("machine", "gpu", "list", MACHINE, "-o", "json");
        assertThat(json.exit()).isZero();
        assertThat(json.out()).contains("\"machine\"", "\"cdiDevices\"", "\"platform\"");
    }

    @Test
    @Order(4)
    void aRepoWithoutAGrantIsRefusedAndTheMessageNamesTheMissingGrant() throws Exception {
        Result r = docker("GPU_A", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu:24.04", "nvidia-smi", "-L");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("nvidia.com/gpu=all is not granted to repo gpu-a on machine " + MACHINE)
                .contains("rdc repo gpu grant gpu-a@" + MACHINE + " --device nvidia.com/gpu=all");
    }

    @Test
    @Order(5)
    void afterAGrantTheVeryNextRunIsAdmitted() throws Exception {
        Result grant = rdc("repo", "gpu", "grant", "gpu-a@" + MACHINE, "--device", "nvidia.com/gpu=all");
        assertThat(grant.exit()).as(grant.all()).isZero();
        Result r = docker("GPU_A", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu:24.04", "nvidia-smi", "-L");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).isEqualTo(nvidiaSmiL(0, 1)); // both cards, by the inventory's names and UUIDs
    }

    @Test
    @Order(6)
    void aGrantOfCardZeroGivesTheContainerThatCardOnly() throws Exception {
        Result grant = rdc("repo", "gpu", "grant", "gpu-a@" + MACHINE, "--device", "nvidia.com/gpu=0");
        assertThat(grant.exit()).as(grant.all()).isZero();
        Result r = docker("GPU_A", "run", "--rm", "--device", "nvidia.com/gpu=0", "ubuntu:24.04", "sh", "-c",
                "nvidia-smi -L; ls /dev | grep nvidia");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).isEqualTo(nvidiaSmiL(0) + "nvidia-uvm\nnvidia-uvm-tools\nnvidia0\nnvidiactl\n");
        Result revoke = rdc("repo", "gpu", "revoke", "gpu-a@" + MACHINE, "--device", "nvidia.com/gpu=0");
        assertThat(revoke.exit()).as(revoke.all()).isZero();
    }

    @Test
    @Order(7)
    void aGrantOfAllDoesNotAdmitCardZero() throws Exception {
        Result r = docker("GPU_A", "run", "--rm", "--device", "nvidia.com/gpu=0", "ubuntu:24.04", "true");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("nvidia.com/gpu=0 is not granted to repo gpu-a");
    }

    @Test
    @Order(8)
    void theForkIsRefusedAlthoughItsParentHoldsTheGrant() throws Exception {
        Result r = docker("GPU_A_FORK", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu:24.04", "true");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("nvidia.com/gpu=all is not granted to repo gpu-a-fork");
    }

    @Test
    @Order(9)
    void anExclusiveGrantMakesTheSameGrantForAnotherRepoFailNamingTheHolder() throws Exception {
        Result exclusive = rdc("repo", "gpu", "grant", "gpu-a@" + MACHINE, "--device", "rediacc.io/dri=renderD128", "--exclusive");
        assertThat(exclusive.exit()).as(exclusive.all()).isZero();
        Result other = rdc("repo", "gpu", "grant", "gpu-a-fork@" + MACHINE, "--device", "rediacc.io/dri=renderD128");
        assertThat(other.exit()).as(other.all()).isEqualTo(4);
        assertThat(other.all()).contains("gpu-a");
    }

    @Test
    @Order(10)
    void aRevokeMakesTheVeryNextRunAndTheStartOfAnEarlierContainerFail() throws Exception {
        Result created = docker("GPU_A", "create", "--device", "nvidia.com/gpu=all", "ubuntu:24.04", "nvidia-smi", "-L");
        assertThat(created.exit()).as(created.all()).isZero();
        String id = created.out().trim();
        Result revoke = rdc("repo", "gpu", "revoke", "gpu-a@" + MACHINE, "--device", "nvidia.com/gpu=all");
        assertThat(revoke.exit()).as(revoke.all()).isZero();
        Result run = docker("GPU_A", "run", "--rm", "--device", "nvidia.com/gpu=all", "ubuntu:24.04", "true");
        assertThat(run.exit()).isNotZero();
        assertThat(run.err()).contains("nvidia.com/gpu=all is not granted to repo gpu-a");
        Result start = docker("GPU_A", "start", id);
        assertThat(start.exit()).isNotZero();
        assertThat(start.err()).contains("nvidia.com/gpu=all");
        // the real daemon holds the container, created under the grant, and never started it
        Result state = run(List.of("docker", "inspect", "--format", "{{.State.Status}} {{json .HostConfig.DeviceRequests}}", id),
                Map.of("DOCKER_HOST", env.get("FLEET_DAEMON_GPU_A")));
        assertThat(state.exit()).as(state.all()).isZero();
        assertThat(state.out()).startsWith("created ").contains("nvidia.com/gpu=all");
    }

    @Test
    @Order(11)
    void composeDevicesWithAGrantedCdiNameRunsWithThatCard() throws Exception {
        rdc("repo", "gpu", "grant", "gpu-a@" + MACHINE, "--device", "nvidia.com/gpu=0");
        Result up = compose("granted", "devices: [nvidia.com/gpu=0]", "run", "--rm", "train");
        assertThat(up.exit()).as(up.all()).isZero();
        assertThat(up.out()).contains(nvidiaSmiL(0));
    }

    @Test
    @Order(12)
    void composeSpellingsOfUngrantedOrUnnamedGpusAreRefusedWithTheGatesMessage() throws Exception {
        Result all = compose("all", "devices: [nvidia.com/gpu=all]", "run", "--rm", "train");
        assertThat(all.exit()).isNotZero();
        assertThat(all.err()).contains("nvidia.com/gpu=all is not granted to repo gpu-a");
        Result gpus = compose("gpus", "gpus: all", "run", "--rm", "train");
        assertThat(gpus.exit()).isNotZero();
        assertThat(gpus.err()).contains("devices: [nvidia.com/gpu=all]");
        Result runtime = compose("runtime", "runtime: nvidia", "run", "--rm", "train");
        assertThat(runtime.exit()).isNotZero();
        assertThat(runtime.err()).containsIgnoringCase("runtime");
        Result deploy = compose("deploy", """
                deploy:
                      resources:
                        reservations:
                          devices: [{driver: nvidia, count: all, capabilities: [gpu]}]""", "run", "--rm", "train");
        assertThat(deploy.exit()).isNotZero();
        assertThat(deploy.err()).contains("devices: [nvidia.com/gpu=all]");
    }

    /** {@code docker compose} (the fleet's real plugin) on a one-service project whose service carries {@code spelling}. */
    private static Result compose(String project, String spelling, String... args) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(STATE.resolve("compose").resolve(project));
        Files.writeString(dir.resolve("compose.yaml"), """
                services:
                  train:
                    image: ubuntu:24.04
                    command: nvidia-smi -L
                    network_mode: none
                    %s
                """.formatted(spelling));
        List<String> cmd = new ArrayList<>(List.of("docker", "compose", "-f", dir.resolve("compose.yaml").toString(), "-p", project));
        cmd.addAll(List.of(args));
        return run(cmd, Map.of("DOCKER_HOST", env.get("DOCKER_HOST_GPU_A"), "DOCKER_CONFIG", env.get("DOCKER_CONFIG")));
    }

    /** {@code nvidia-smi -L} of a container given these cards: the machine's inventory names them. */
    private static String nvidiaSmiL(int... indexes) throws IOException {
        var inv = io.rediacc.gpu.contracts.events.EventJson.fromBytes(Files.readAllBytes(STATE.resolve(
                "machine/root/etc/rediacc/gpu/inventory.json")), io.rediacc.gpu.contracts.events.MachineInventory.class);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < indexes.length; i++) {
            int index = indexes[i];
            var gpu = inv.gpus().stream().filter(g -> "nvidia".equals(g.vendor()) && g.index() == index).findFirst().orElseThrow();
            out.append("GPU ").append(i).append(": ").append(gpu.name()).append(" (UUID: ").append(gpu.uuid()).append(")\n");
        }
        return out.toString();
    }

    @Test
    @Order(13)
    void gpusAllIsRefusedWithItsReplacementSpelledOut() throws Exception {
        Result r = docker("GPU_A", "run", "--rm", "--gpus", "all", "ubuntu:24.04", "true");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("--device nvidia.com/gpu=all");
    }

    @Test
    @Order(14)
    void aComposeStyleRequestWithRuntimeNvidiaIsRefused() throws Exception {
        String body = """
                {"Image":"ubuntu:24.04","Cmd":["nvidia-smi"],
                 "Labels":{"com.docker.compose.project":"demo","com.docker.compose.service":"train"},
                 "HostConfig":{"Runtime":"nvidia","NetworkMode":"demo_default"}}""";
        Result r = run(List.of("curl", "-sS", "--unix-socket", socket("GPU_A"), "-H", "Content-Type: application/json",
                "-d", body, "-w", "\\n%{http_code}", "http://docker/v1.47/containers/create?name=demo-train-1"), Map.of());
        assertThat(r.out()).contains("403").contains("nvidia");
    }

    @Test
    @Order(15)
    void groupAddVideoPasses() throws Exception {
        Result r = docker("GPU_A", "run", "--rm", "--group-add", "video", "ubuntu:24.04", "true");
        assertThat(r.exit()).as(r.all()).isZero();
    }

    @Test
    @Order(12)
    void theAuditShowsTheSessionsGrantsRefusalsAndRevokes() throws Exception {
        Result r = rdc("audit", "--machine", MACHINE, "--since", "1h", "-o", "json");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out()).contains("\"event\" : \"granted\"", "\"event\" : \"refused\"", "\"event\" : \"revoked\"",
                "exclusive-conflict: rediacc.io/dri=renderD128");
        Result table = rdc("audit", "--machine", MACHINE, "--repo", "gpu-a-fork");
        assertThat(table.exit()).as(table.all()).isZero();
        assertThat(table.out()).startsWith("AT ").contains("refused  " + MACHINE + "  gpu-a-fork  rediacc.io/dri=renderD128");
    }

    /**
     * A driver update on the machine (its nvidia-smi reports a new driver, nvidia-ctk generates a spec
     * for it), then {@code rdc machine setup} again, as the operator would after the update: the spec
     * is regenerated (reported changed) and inventory-service shows the new driver.
     */
    @Test
    @Order(16)
    void afterADriverUpdateSetupRegeneratesTheSpecAndGpuListShowsTheNewDriver() throws Exception {
        Path standIns = STATE.resolve("machine/state");
        Path csv = standIns.resolve("nvidia-smi-gpus.csv");
        String oldDriver = Files.readAllLines(csv).get(0).split(", ")[3];
        String newDriver = "580.95.05";
        assertThat(oldDriver).isNotEqualTo(newDriver);
        for (Path f : List.of(csv, standIns.resolve("nvidia-ctk-nvml.yaml"))) {
            Files.writeString(f, Files.readString(f).replace(oldDriver, newDriver));
        }
        Path libcuda = STATE.resolve("machine/root/lib/x86_64-linux-gnu/libcuda.so." + newDriver); // the new driver's library
        Files.createDirectories(libcuda.getParent());
        Files.writeString(libcuda, "");
        Result before = rdc("machine", "gpu", "list", MACHINE);
        assertThat(before.out()).as(before.all()).contains(oldDriver).doesNotContain(newDriver);

        Result setup = rdcLong(Duration.ofMinutes(4), "--config", env.get("RDC_CONFIG"), "machine", "setup", MACHINE, "--wait", "3m");
        assertThat(setup.exit()).as(setup.all()).isZero();
        assertThat(setup.out()).contains("package: unchanged", "node-agent setup: changed", "updated /etc/cdi/nvidia.yaml",
                "fleet: inventory received, every gate synced");
        assertThat(Files.readString(STATE.resolve("machine/root/etc/cdi/nvidia.yaml"))).contains(newDriver).doesNotContain(oldDriver);
        Result after = rdc("machine", "gpu", "list", MACHINE);
        assertThat(after.exit()).as(after.all()).isZero();
        assertThat(after.out()).contains(newDriver).doesNotContain(oldDriver);
    }

    @Test
    @Order(20)
    void everyRecordTheStoryProducedMatchesItsPublishedSchemaAndCloudEventsHeaders() throws Exception {
        // what a monitoring consumer sees: all five topics from the beginning, read by a plain Kafka client logged in as
        // the fleet's monitoring user (fleet.env's KAFKA_*: it reads every topic and writes none)
        Map<String, Object> client = Map.of("bootstrap.servers", env.get("KAFKA_BOOTSTRAP_SERVERS"),
                "security.protocol", env.get("KAFKA_SECURITY_PROTOCOL"), "sasl.mechanism", env.get("KAFKA_SASL_MECHANISM"),
                "sasl.jaas.config", env.get("KAFKA_SASL_JAAS_CONFIG"));
        List<String> violations = new ArrayList<>();
        Map<String, Integer> values = new java.util.LinkedHashMap<>();
        for (io.rediacc.gpu.contracts.events.Topics.TopicSpec topic : io.rediacc.gpu.contracts.events.Topics.ALL) {
            TopicContracts.Report report = TopicContracts.check(topic, TopicContracts.readAll(client, topic.name()));
            violations.addAll(report.violations());
            values.put(topic.name(), report.values());
        }
        assertThat(violations).isEmpty();
        // the story wrote to every topic: an inventory, grants, their audit, the gates' status and refusals
        assertThat(values).hasSize(5).allSatisfy((topic, n) -> assertThat(n).as(topic).isPositive());
    }

    @Test
    @Order(21)
    void theServicesExportEverySeriesTheAlertsAndDashboardUseEachWithHelpText() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        Map<String, String> help = new java.util.TreeMap<>();
        java.util.Set<String> samples = new java.util.TreeSet<>();
        for (String target : List.of("METRICS_GRANT_SERVICE", "METRICS_INVENTORY_SERVICE", "METRICS_DOCKER_GATE")) {
            var answer = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(env.get(target))).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(target).isEqualTo(200);
            for (String line : answer.body().lines().toList()) {
                if (line.startsWith("# HELP ")) {
                    String[] parts = line.split(" ", 4);
                    help.put(parts[2], parts.length > 3 ? parts[3].trim() : "");
                } else if (!line.startsWith("#") && !line.isBlank()) {
                    samples.add(line.split("[{ ]", 2)[0]);
                }
            }
        }
        // the API ports do not serve them
        for (String api : List.of("RDC_GRANT_URL", "RDC_INVENTORY_URL")) {
            var answer = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(env.get(api) + "/q/metrics")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(api + "/q/metrics").isEqualTo(404);
        }
        java.util.Set<String> listed = MonitoringFilesTest.exportedMetrics();
        assertThat(samples).as("deploy/monitoring/exported-metrics.txt names only what the services export")
                .containsAll(MonitoringFilesTest.exportedFromStart());
        List<String> productFamilies = help.keySet().stream().filter(n -> n.matches("(grants|gate|inventory)_.*")).toList();
        assertThat(productFamilies).hasSizeGreaterThan(15).allSatisfy(family -> {
            assertThat(help.get(family)).as("HELP of " + family).isNotBlank();
            assertThat(listed).as("exported-metrics.txt lists " + family).anyMatch(n -> n.equals(family) || n.startsWith(family + "_"));
        });
    }

    private static String socket(String repo) {
        return env.get("DOCKER_HOST_" + repo).substring("unix://".length());
    }

    private static Result rdc(String... args) throws IOException, InterruptedException {
        return fleet.rdc(args);
    }

    private static Result rdcLong(Duration timeout, String... args) throws IOException, InterruptedException {
        return fleet.rdc(timeout, args);
    }

    private static Result docker(String repo, String... args) throws IOException, InterruptedException {
        return fleet.docker(repo, args);
    }

    private static Result run(List<String> cmd, Map<String, String> extraEnv) throws IOException, InterruptedException {
        return fleet.run(cmd, extraEnv);
    }
}
