package io.rediacc.gpu.gate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the daemon is sent once the policy admitted a create (issue 30): every host path replaced by
 * its pin, {@code Binds} host entries turned into bind {@code Mounts} with their options, volumes and
 * anonymous volumes left alone, the gate's labels added, and a request's own gate labels refused.
 * The pins here are a recording stand-in; {@code BindPinnerTest} and {@code RealDaemonAllowlistTest}
 * pin for real.
 */
class PinRewriteTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Records each pin; the pin of {@code /srv/x} is {@code /pins/<n>}. */
    private static final class RecordingPins implements BindPins {
        final List<String> pinned = new ArrayList<>();
        final List<String> released = new ArrayList<>();
        final List<Boolean> created = new ArrayList<>();

        @Override
        public String newToken() {
            return "tok";
        }

        @Override
        public String pin(RepoIdentity repo, String token, Owner owner, String hostPath, boolean createMissing) {
            if (hostPath.contains("refused")) {
                throw new Refused(403, hostPath + " leads out of the hostPaths root");
            }
            pinned.add(owner + " " + hostPath);
            created.add(createMissing);
            return "/pins/" + (pinned.size() - 1);
        }

        @Override
        public void save(RepoIdentity repo) {
        }

        @Override
        public void commit(RepoIdentity repo, String token) {
        }

        @Override
        public void release(RepoIdentity repo, String token) {
            released.add(token);
        }

        @Override
        public String pinDirectory(RepoIdentity repo) {
            return "/pins";
        }
    }

    private final RecordingPins pins = new RecordingPins();

    private JsonNode create(String body) throws Exception {
        PinRewrite.Result r = PinRewrite.containerCreate(PolicyTestKit.utf8(body), PolicyTestKit.REPO, pins);
        return JSON.readTree(r.body());
    }

    @Test
    void hostBindsBecomeBindMountsOfTheirPinsWithTheirOptionsAndVolumesStay() throws Exception {
        JsonNode out = create("""
                {"Image":"busybox","Labels":{"app":"x"},"HostConfig":{"Binds":["/srv/a:/a:ro,rshared","data:/data","/anon","/srv/b/../c:/c:rw,z"],
                 "Mounts":[{"Type":"bind","Source":"/srv/m","Target":"/m","BindOptions":{"CreateMountpoint":true}},{"Type":"tmpfs","Target":"/t"}]}}""");

        assertThat(pins.pinned).containsExactly("CONTAINER /srv/a", "CONTAINER /srv/c", "CONTAINER /srv/m");
        assertThat(pins.created).containsExactly(true, true, true);
        assertThat(out.at("/HostConfig/Binds").toString()).isEqualTo("[\"data:/data\",\"/anon\"]");
        JsonNode mounts = out.at("/HostConfig/Mounts");
        assertThat(mounts.toString()).isEqualTo("[{\"Type\":\"bind\",\"Source\":\"/pins/2\",\"Target\":\"/m\",\"BindOptions\":{\"CreateMountpoint\":false}},"
                + "{\"Type\":\"tmpfs\",\"Target\":\"/t\"},"
                + "{\"Type\":\"bind\",\"Source\":\"/pins/0\",\"Target\":\"/a\",\"ReadOnly\":true,\"BindOptions\":{\"Propagation\":\"rshared\"}},"
                + "{\"Type\":\"bind\",\"Source\":\"/pins/1\",\"Target\":\"/c\"}]");
        assertThat(out.at("/Labels").toString()).isEqualTo("{\"app\":\"x\",\"io.rediacc.gate.pins\":\"tok\","
                + "\"io.rediacc.gate.bind.0\":\"/srv/a\",\"io.rediacc.gate.bind.1\":\"/srv/c\",\"io.rediacc.gate.bind.2\":\"/srv/m\"}");
    }

    @Test
    void keysAreFoundAsGoFindsThemAndNonAsciiSurvivesTheRewrite() throws Exception {
        JsonNode out = create("{\"hostconfig\":{\"binds\":[\"/srv/\u00e9t\u00e9:/x\"]},\"Env\":[\"A=\\u2028\"]}");

        assertThat(pins.pinned).containsExactly("CONTAINER /srv/\u00e9t\u00e9");
        assertThat(out.at("/hostconfig/Mounts/0/Source").asText()).isEqualTo("/pins/0");
        assertThat(out.at("/hostconfig/binds").isNull()).isTrue();
        assertThat(out.at("/Env/0").asText()).isEqualTo("A=\u2028");
    }

    @Test
    void aBodyWithoutHostPathsIsForwardedUnchanged() {
        byte[] body = PolicyTestKit.utf8("{\"Image\":\"busybox\",\"HostConfig\":{\"Binds\":[\"data:/d\"]}}");

        PinRewrite.Result r = PinRewrite.containerCreate(body, PolicyTestKit.REPO, pins);

        assertThat(r.token()).isNull();
        assertThat(r.body()).isSameAs(body);
    }

    @Test
    void localBindVolumesGetThePinAsDeviceInlineAndCreated() throws Exception {
        JsonNode out = create("""
                {"HostConfig":{"Mounts":[{"Type":"volume","Source":"v","Target":"/v","VolumeOptions":{"DriverConfig":
                 {"Name":"local","Options":{"type":"none","o":"rbind,ro","device":"/srv/work/l/.."}}}}]}}""");
        PinRewrite.Result created = PinRewrite.volumeCreate(PolicyTestKit.utf8(
                "{\"Name\":\"w\",\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/srv/w\"}}"), PolicyTestKit.REPO, pins);

        assertThat(out.at("/HostConfig/Mounts/0/VolumeOptions/DriverConfig/Options/device").asText()).isEqualTo("/pins/0");
        assertThat(out.at("/HostConfig/Mounts/0/VolumeOptions/Labels/io.rediacc.gate.pins").asText()).isEqualTo("tok");
        JsonNode volume = JSON.readTree(created.body());
        assertThat(volume.at("/DriverOpts/device").asText()).isEqualTo("/pins/1");
        assertThat(volume.at("/Labels/io.rediacc.gate.bind.0").asText()).isEqualTo("/srv/w");
        assertThat(pins.pinned).as("an inline volume's pin lives with the volume").containsExactly("VOLUME /srv/work", "VOLUME /srv/w");
    }

    @Test
    void theGatesLabelsInARequestAndAPathThatCannotBePinnedAreRefusedAndEarlierPinsReleased() {
        assertThat(PolicyTestKit.refusal(policyPin("{\"Labels\":{\"io.rediacc.gate.pins\":\"someone-elses\"}}")).message())
                .contains("labels under io.rediacc.gate. are the gate's own");

        Refusal refused = PolicyTestKit.refusal(policyPin("{\"HostConfig\":{\"Binds\":[\"/srv/ok:/a\",\"/srv/refused:/b\"]}}"));

        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.message()).contains("/srv/refused").contains("leads out of the hostPaths root");
        assertThat(pins.released).containsExactly("tok");
    }

    private Verdict policyPin(String body) {
        GatePolicy policy = new GatePolicy(PolicyTestKit.MAX_BODY, PolicyTestKit.HOST_ACCESS, pins);
        GatePolicy.Pinned p = policy.pin(PolicyTestKit.post("/v1.47/containers/create", PolicyTestKit.utf8(body)), PolicyTestKit.utf8(body),
                PolicyTestKit.REPO);
        return p.refusal() == null ? new Verdict.Allow() : new Verdict.Deny(p.refusal());
    }
}
