package io.rediacc.gpu.agent.machine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DaemonJsonTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final DockerVersion V26 = DockerVersion.parse("26.1.5").orElseThrow();
    static final DockerVersion V28_2 = DockerVersion.parse("28.2.2").orElseThrow();

    static ObjectNode doc(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    @Test
    void wrongConfigIsFixedAndEveryOtherKeyKept() throws Exception {
        ObjectNode before = doc("""
                {"bridge":"none","iptables":false,"features":{"cdi":false,"buildkit":true},
                 "cdi-spec-dirs":["/etc/cdi","/var/run/cdi"],"default-runtime":"nvidia","runtimes":{"nvidia":{"path":"x"}}}""");
        DaemonJson.Merge m = DaemonJson.merge(before, V26);
        assertThat(m.changes()).hasSize(3);
        assertThat(m.document()).isEqualTo(doc("""
                {"bridge":"none","iptables":false,"features":{"cdi":true,"buildkit":true},
                 "cdi-spec-dirs":["/etc/cdi"],"runtimes":{"nvidia":{"path":"x"}}}"""));
        assertThat(before.get("default-runtime").asText()).as("input untouched").isEqualTo("nvidia");
        assertThat(DaemonJson.merge(m.document(), V26).changed()).as("second merge").isFalse();
    }

    @Test
    void cdiFeatureIsWrittenOnlyWhereTheDaemonNeedsIt() throws Exception {
        assertThat(DaemonJson.merge(doc("{}"), V26).document().path("features").path("cdi").asBoolean()).isTrue();
        // on by default from 28.2: an empty config only gets the spec directory
        assertThat(DaemonJson.merge(doc("{}"), V28_2).document()).isEqualTo(doc("{\"cdi-spec-dirs\":[\"/etc/cdi\"]}"));
        // but an explicit false still turns it off there, so it is corrected
        assertThat(DaemonJson.merge(doc("{\"features\":{\"cdi\":false}}"), V28_2).changes()).anyMatch(c -> c.startsWith("features.cdi"));
        assertThat(DaemonJson.merge(doc("{\"default-runtime\":\"runc\",\"cdi-spec-dirs\":[\"/etc/cdi\"]}"), V28_2).changed()).isFalse();
    }

    @Test
    void aSimulatedMachinesDaemonsReadItsOwnCdiDirectoryNeverTheHosts() throws Exception {
        DaemonJson.Merge m = DaemonJson.merge(doc("{\"cdi-spec-dirs\":[\"/etc/cdi\"]}"), V28_2, "/tmp/machine/root/etc/cdi");
        assertThat(m.changes()).containsExactly("cdi-spec-dirs [\"/etc/cdi\"] -> [\"/tmp/machine/root/etc/cdi\"]");
        assertThat(m.document()).isEqualTo(doc("{\"cdi-spec-dirs\":[\"/tmp/machine/root/etc/cdi\"]}"));
    }

    @Test
    void versionsCompare() {
        assertThat(DockerVersion.parse("24.0.9").orElseThrow().before(25, 0)).isTrue();
        assertThat(DockerVersion.parse("25.0.0").orElseThrow().before(25, 0)).isFalse();
        assertThat(DockerVersion.parse("28.1.1").orElseThrow().before(28, 2)).isTrue();
        assertThat(DockerVersion.parse("dev")).isEmpty();
        assertThat(DockerVersion.complete("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")).isTrue();
        assertThat(DockerVersion.complete("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}")).isFalse();
    }
}
