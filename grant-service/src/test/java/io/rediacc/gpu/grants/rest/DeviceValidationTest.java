package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Rule 1: a device name is checked by CDI syntax first, then against the machine's CDI devices. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class DeviceValidationTest {

    private final GrantApi api = new GrantApi();

    @Test
    void invalidCdiNameIs400SayingWhichPartIsWrong() {
        RepoInfo repo = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "syntax", repo);

        Response vendor = api.grant(m.ref(repo), "1nvidia.com/gpu=0", false, "0");
        assertThat(vendor.statusCode()).isEqualTo(400);
        assertThat(vendor.<String>path("error")).isEqualTo("invalid-device-name");
        assertThat(vendor.<String>path("part")).isEqualTo("vendor");
        assertThat(vendor.<String>path("detail")).contains("vendor \"1nvidia.com\" must start with a letter");
        assertThat(vendor.<String>path("hint")).contains("vendor/class=device");

        Response device = api.grant(m.ref(repo), "nvidia.com/gpu=", false, "0");
        assertThat(device.statusCode()).isEqualTo(400);
        assertThat(device.<String>path("part")).isEqualTo("device");

        Response path = api.grant(m.ref(repo), "/dev/nvidia0", false, "0");
        assertThat(path.statusCode()).isEqualTo(400);
        assertThat(path.<String>path("detail")).contains("is a path, not a CDI device name");
    }

    @Test
    void unknownDeviceIs422ListingGrantableNamesAndClosestMatch() {
        RepoInfo repo = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "typo", repo);

        Response typo = api.grant(m.ref(repo), "nvidia.com/gpu=O", false, "0");

        assertThat(typo.statusCode()).isEqualTo(422);
        assertThat(typo.<String>path("error")).isEqualTo("unknown-device");
        assertThat(typo.<String>path("closestMatch")).isEqualTo("nvidia.com/gpu=0");
        assertThat(typo.<List<String>>path("grantable")).containsExactlyInAnyOrder(
                "nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all", "rediacc.io/dri=renderD128");
        // one sentence, and the names in "grantable" rather than one long line of them
        assertThat(typo.<String>path("detail")).isEqualTo("machine " + m.name + " defines no CDI device nvidia.com/gpu=O; "
                + "did you mean nvidia.com/gpu=0?");
        assertThat(typo.<String>path("hint")).isEqualTo("grant nvidia.com/gpu=0 instead, or grant one of the machine's names "
                + "(GET /api/v1/machines/" + m.name + " lists them); if the device is new, rerun setup on " + m.name
                + " so the CDI spec and inventory include it");

        Response unrelated = api.grant(m.ref(repo), "example.com/fpga=7", false, "0");
        assertThat(unrelated.statusCode()).isEqualTo(422);
        assertThat(unrelated.<String>path("closestMatch")).isNull();
        assertThat(unrelated.<String>path("detail")).isEqualTo("machine " + m.name
                + " defines no CDI device example.com/fpga=7 (it defines 4 other names)");
    }

    @Test
    void unknownDeviceIsNeverRecorded() throws Exception {
        RepoInfo repo = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "never", repo);

        assertThat(api.grant(m.ref(repo), "nvidia.com/gpu=7", false, "0").statusCode()).isEqualTo(422);

        assertThat(api.repoGrants(m.ref(repo)).<List<?>>path("grants")).isEmpty();
        assertThat(api.machineGrants(m.name).<Integer>path("version")).isZero();
        try (Connection c = PostgresTestResource.current().connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("select count(*) from grants where machine = '" + m.name + "'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }

    @Test
    void machineWithoutInventoryIs409RunSetup() {
        String machine = Fleet.uniqueMachine("silent");

        Response response = api.grant("train@" + machine, "nvidia.com/gpu=0", false, "0");

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.<String>path("error")).isEqualTo("no-inventory");
        assertThat(response.<String>path("detail")).isEqualTo("no inventory from machine " + machine + "; run setup");
    }
}
