package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import io.rediacc.gpu.cli.support.StandInService.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code rdc audit}, {@code rdc machine remove}, and the reason and expiry of grants and revokes. */
class AuditAndRemovalCommandsTest {

    static final String ENTRY_1 = """
            {"id":1,"eventId":"e1","at":"2026-11-29T10:00:00Z","event":"granted","machine":"m1","repo":"gpu-a",\
            "repoGuid":"g","device":"nvidia.com/gpu=0","exclusive":true,"actor":"alice","version":1,\
            "requestReason":"ticket-123"}""";
    static final String ENTRY_2 = """
            {"id":2,"eventId":"e2","at":"2026-11-29T10:01:00Z","event":"refused","machine":"m1","repo":"gpu-b",\
            "repoGuid":"h","device":"nvidia.com/gpu=all","exclusive":false,"actor":"bob",\
            "reason":"exclusive-conflict: nvidia.com/gpu=all on m1 reaches a card reserved exclusively"}""";

    StandInService grants;
    StandInService inventory;

    @BeforeEach
    void startService() {
        grants = StandInService.start();
        inventory = StandInService.start();
        inventory.on("DELETE", "/api/v1/machines/m1/kafka-user", Answer.json(200, """
                {"machine":"m1","principal":"machine-m1","mechanism":"SCRAM-SHA-512","existed":true,"present":false}"""));
    }

    @AfterEach
    void stopService() {
        grants.close();
        inventory.close();
    }

    @Test
    void auditReadsEveryPageAndPrintsATable() {
        grants.on("GET", "/api/v1/audit", request -> request.rawQuery().contains("after=1")
                ? Answer.json(200, "{\"entries\":[" + ENTRY_2 + "]}")
                : Answer.json(200, "{\"entries\":[" + ENTRY_1 + "],\"next\":\"1\"}"));

        LaunchResult result = rdc().run("audit", "--machine", "m1", "--since", "24h");

        assertThat(result.exitCode()).as(result.getErrorOutput()).isZero();
        assertThat(stdout(result)).isEqualTo("""
                AT                    EVENT    MACHINE  REPO   DEVICE              EXCLUSIVE  ACTOR  REASON
                2026-11-29T10:00:00Z  granted  m1       gpu-a  nvidia.com/gpu=0    yes        alice  ticket-123
                2026-11-29T10:01:00Z  refused  m1       gpu-b  nvidia.com/gpu=all  no         bob    exclusive-conflict: nvidia.com/gpu=all on m1 reaches a card reserved exclusively
                """);
        List<Request> sent = grants.requests();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0).rawQuery()).contains("machine=m1").contains("since=").doesNotContain("after=");
        Instant since = Instant.parse(java.net.URLDecoder.decode(
                sent.get(0).rawQuery().replaceAll(".*since=([^&]*).*", "$1"), java.nio.charset.StandardCharsets.UTF_8));
        assertThat(since).isBetween(Instant.now().minus(Duration.ofHours(24)).minusSeconds(60),
                Instant.now().minus(Duration.ofHours(24)));
        assertThat(sent.get(1).rawQuery()).contains("after=1");
    }

    @Test
    void auditAsJsonIsTheEntriesAsTheServiceAnswers() throws Exception {
        grants.on("GET", "/api/v1/audit", Answer.json(200, "{\"entries\":[" + ENTRY_1 + "]}"));

        LaunchResult result = rdc().run("audit", "--repo", "gpu-a", "-o", "json");

        assertThat(result.exitCode()).isZero();
        JsonNode printed = Json.mapper().readTree(stdout(result));
        assertThat(printed.isArray()).isTrue();
        assertThat(printed.get(0).get("requestReason").asText()).isEqualTo("ticket-123");
        assertThat(grants.requests().get(0).rawQuery()).contains("repo=gpu-a");
    }

    @Test
    void auditRefusesATimeItCannotRead() {
        LaunchResult result = rdc().run("audit", "--since", "yesterday");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorOutput()).contains("--since yesterday is neither a duration");
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void grantSendsTheReasonAndTheExpiry() throws Exception {
        grants.on("POST", "/api/v1/repos/a@m1/grants", Answer.json(202, """
                {"machine":"m1","repo":"a","repoGuid":"g","device":"nvidia.com/gpu=0","exclusive":false,"version":2,\
                "created":true,"enforced":false,"enforcement":"no live gate","expiresAt":"2026-11-29T18:00:00Z"}"""));

        LaunchResult result = rdc().run("repo", "gpu", "grant", "a@m1", "--device", "nvidia.com/gpu=0",
                "--reason", "ticket-123", "--expires-in", "8h");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_ENFORCED);
        assertThat(stdout(result)).contains("expires 2026-11-29T18:00:00Z");
        JsonNode body = Json.mapper().readTree(grants.requests().get(0).body());
        assertThat(body.get("reason").asText()).isEqualTo("ticket-123");
        assertThat(body.get("expiresIn").asText()).isEqualTo("8h");
        assertThat(body.has("expiresAt")).isFalse();
    }

    @Test
    void grantRefusesBothExpiriesOrABadOne() {
        assertThat(rdc().run("repo", "gpu", "grant", "a@m1", "--device", "nvidia.com/gpu=0", "--expires-in", "8h",
                "--until", "2026-12-01T00:00:00Z").exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(rdc().run("repo", "gpu", "grant", "a@m1", "--device", "nvidia.com/gpu=0", "--expires-in", "soon")
                .exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void revokeSendsTheReason() {
        grants.on("DELETE", "/api/v1/repos/a@m1/grants/nvidia.com%2Fgpu=0", Answer.json(200, """
                {"machine":"m1","repo":"a","repoGuid":"g","device":"nvidia.com/gpu=0","version":3,"enforced":true,\
                "enforcement":"enforced"}"""));

        LaunchResult result = rdc().run("repo", "gpu", "revoke", "a@m1", "--device", "nvidia.com/gpu=0", "--reason", "done now");

        assertThat(result.exitCode()).isZero();
        assertThat(grants.requests().get(0).rawQuery()).contains("reason=done+now");
    }

    @Test
    void machineRemoveIsRefusedWhileTheMachineHoldsGrants() {
        grants.on("DELETE", "/api/v1/machines/m1", Answer.json(409, """
                {"error":"machine-has-grants","detail":"machine m1 still holds 1 grant(s): a nvidia.com/gpu=0",\
                "hint":"revoke them first, or remove the machine with its grants: rdc machine remove m1 --revoke-grants"}"""));

        LaunchResult result = rdc().run("machine", "remove", "m1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.CONFLICT);
        assertThat(result.getErrorOutput()).contains("machine-has-grants").contains("--revoke-grants");
        assertThat(grants.requests().get(0).rawQuery()).isNull();
    }

    @Test
    void machineRemoveWithRevokeGrantsSaysWhatItRevoked() {
        grants.on("DELETE", "/api/v1/machines/m1", Answer.json(200, """
                {"machine":"m1","revokedCount":1,"revoked":[{"repoGuid":"g","repoName":"a","device":"nvidia.com/gpu=0",\
                "exclusive":false,"grantedBy":"alice","grantedAt":"2026-11-29T10:00:00Z"}],"version":4,"tombstonedGates":["m1-gate"]}"""));

        LaunchResult result = rdc().run("machine", "remove", "m1", "--revoke-grants", "--reason", "decommissioned");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).isEqualTo("removed machine m1: revoked 1 grant(s): nvidia.com/gpu=0 of a; "
                + "its inventory and gate records are tombstoned\n"
                + "its Kafka user machine-m1 is deleted: the machine can no longer log in to Kafka\n");
        assertThat(inventory.requests()).hasSize(1);
        assertThat(grants.requests().get(0).rawQuery()).isEqualTo("revokeGrants=true&reason=decommissioned");
    }

    @Test
    void machineRemoveOfAMachineWithoutGatesSaysItsInventoryIsTombstoned() {
        grants.on("DELETE", "/api/v1/machines/m1", Answer.json(200, """
                {"machine":"m1","revokedCount":0,"revoked":[],"version":0,"tombstonedGates":[]}"""));

        LaunchResult result = rdc().run("machine", "remove", "m1");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).contains("; its inventory is tombstoned\n");
    }

    /** Where Strimzi owns the Kafka users, rdc says whose job the user's deletion is; the removal stands. */
    @Test
    void machineRemoveSaysWhereTheKafkaUserIsManagedOutsideTheServices() {
        grants.on("DELETE", "/api/v1/machines/m1", Answer.json(200, """
                {"machine":"m1","revokedCount":0,"revoked":[],"version":0,"tombstonedGates":[]}"""));
        inventory.on("DELETE", "/api/v1/machines/m1/kafka-user", Answer.json(409, """
                {"type":"https://rediacc.io/problems/kafka-users-not-managed","detail":"not managed","hint":"elsewhere"}"""));

        LaunchResult result = rdc().run("machine", "remove", "m1");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).endsWith("its Kafka user machine-m1 is managed outside inventory-service: delete it there"
                + " (kubectl delete kafkauser machine-m1)\n");
    }

    /** A Kafka user that could not be deleted is not silent: a warning and a failing exit code. */
    @Test
    void machineRemoveWarnsWhenTheKafkaUserCouldNotBeDeleted() {
        grants.on("DELETE", "/api/v1/machines/m1", Answer.json(200, """
                {"machine":"m1","revokedCount":0,"revoked":[],"version":0,"tombstonedGates":[]}"""));
        inventory.on("DELETE", "/api/v1/machines/m1/kafka-user", Answer.json(503, """
                {"type":"https://rediacc.io/problems/kafka-unavailable","detail":"Kafka did not answer","hint":"retry"}"""));

        LaunchResult result = rdc().run("machine", "remove", "m1");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.getErrorOutput()).contains("the Kafka user machine-m1 was not deleted").contains("Kafka did not answer");
    }

    @Test
    void aGoneReposGrantsAreFlagged() {
        grants.on("GET", "/api/v1/repos/old@m1/grants", Answer.json(200, """
                {"machine":"m1","repo":"old","repoGuid":"g","repoGone":true,"grants":[{"device":"nvidia.com/gpu=0",\
                "exclusive":false,"grantedBy":"alice","grantedAt":"2026-11-29T10:00:00Z"}]}"""));

        LaunchResult result = rdc().run("repo", "gpu", "list", "old@m1");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).contains("old@m1 (repo gone)  nvidia.com/gpu=0")
                .contains("old is no longer on m1; revoke its grants with: rdc repo gpu revoke old@m1 --device <name>");
    }

    private Rdc rdc() {
        return new Rdc(inventory, grants);
    }
}
