package io.rediacc.gpu.gate.policy;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Which of the daemon's volumes a passed request may remove: their kept answers go before the daemon acts (issue 34). */
class VolumeRemovalsTest {

    private final GatePolicy policy = new GatePolicy(PolicyTestKit.MAX_BODY, PolicyTestKit.HOST_ACCESS);

    private String removes(String method, String uri) {
        return policy.removesVolumes(new RequestHead(method, uri, Map.of()));
    }

    @Test
    void aVolumesDeleteNamesItWithOrWithoutAVersionAndPercentDecoded() {
        assertThat(removes("DELETE", "/v1.47/volumes/hf-cache")).isEqualTo("hf-cache");
        assertThat(removes("DELETE", "/volumes/hf-cache?force=1")).isEqualTo("hf-cache");
        assertThat(removes("DELETE", "/v1.47/volumes/hf%2Dcache")).isEqualTo("hf-cache");
    }

    @Test
    void aPruneAContainersRemovalAndAnUnreadableTargetMayTakeAny() {
        assertThat(removes("POST", "/v1.47/volumes/prune")).isEqualTo(GatePolicy.ALL_VOLUMES);
        assertThat(removes("DELETE", "/v1.47/containers/abc?v=1")).isEqualTo(GatePolicy.ALL_VOLUMES);
        assertThat(removes("DELETE", "/containers/abc")).isEqualTo(GatePolicy.ALL_VOLUMES);
        assertThat(removes("DELETE", "no-slash")).isEqualTo(GatePolicy.ALL_VOLUMES);
    }

    @Test
    void readsAndCreatesRemoveNothing() {
        assertThat(removes("GET", "/v1.47/volumes/hf-cache")).isNull();
        assertThat(removes("POST", "/v1.47/volumes/create")).isNull();
        assertThat(removes("POST", "/v1.47/containers/create")).isNull();
        assertThat(removes("DELETE", "/v1.47/volumes/")).isNull();
        assertThat(removes("GET", "/_ping")).isNull();
    }
}
