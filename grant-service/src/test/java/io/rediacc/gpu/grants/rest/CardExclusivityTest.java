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
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rule 4: an exclusive grant reserves the card(s) its name reaches, by the device nodes of the
 * machine's CDI specs, for every alias of the card: index, UUID, {@code all}, MIG slices (which
 * carry their parent's node) and the DRM names of the same card. The minor of a card's node is not
 * its index here (index 0 is {@code /dev/nvidia1}), as on real machines where they differ.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class CardExclusivityTest {

    /** Every name that reaches NVIDIA card index 0 (node /dev/nvidia1). */
    static final List<String> CARD0 = List.of("nvidia.com/gpu=0", "nvidia.com/gpu=GPU-4a99505f-3e4d-385e-a35f-88a51d075281",
            "nvidia.com/gpu=all", "nvidia.com/gpu=0:0", "nvidia.com/gpu=0:1",
            "nvidia.com/gpu=MIG-1f2e3d4c-5b6a-5978-8a9b-0c1d2e3f4a5b", "rediacc.io/dri=renderD129");
    /** Every name that reaches the AMD card. */
    static final List<String> AMD = List.of("rediacc.io/amd=gpu0", "rediacc.io/amd=all", "rediacc.io/dri=renderD130");

    private final GrantApi api = new GrantApi();
    private final RepoInfo holder = Fleet.repo("holder");
    private final RepoInfo other = Fleet.repo("other");
    private TestMachine m;

    static Map<String, List<String>> devices() {
        List<String> control = List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
        List<String> card0 = List.of("/dev/nvidia1", "/dev/dri/card1", "/dev/dri/renderD129");
        List<String> card1 = List.of("/dev/nvidia0", "/dev/dri/card0", "/dev/dri/renderD128");
        List<String> amd = List.of("/dev/kfd", "/dev/dri/card2", "/dev/dri/renderD130");
        Map<String, List<String>> d = new LinkedHashMap<>();
        d.put("nvidia.com/gpu=0", concat(card0, control));
        d.put("nvidia.com/gpu=GPU-4a99505f-3e4d-385e-a35f-88a51d075281", concat(card0, control));
        d.put("nvidia.com/gpu=1", concat(card1, control));
        d.put("nvidia.com/gpu=GPU-7fc596a7-39e2-3baf-9b3d-888082e87057", concat(card1, control));
        d.put("nvidia.com/gpu=all", concat(concat(card0, card1), control));
        d.put("nvidia.com/gpu=0:0", concat(List.of("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap22"), control));
        d.put("nvidia.com/gpu=0:1", concat(List.of("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap30", "/dev/nvidia-caps/nvidia-cap31"), control));
        d.put("nvidia.com/gpu=MIG-1f2e3d4c-5b6a-5978-8a9b-0c1d2e3f4a5b", concat(List.of("/dev/nvidia1", "/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap22"), control));
        d.put("rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"));
        d.put("rediacc.io/dri=renderD129", List.of("/dev/dri/renderD129"));
        d.put("rediacc.io/dri=renderD130", List.of("/dev/dri/renderD130"));
        d.put("rediacc.io/amd=gpu0", amd);
        d.put("rediacc.io/amd=all", amd);
        return d;
    }

    /** A machine per test: a failed test leaves no grant behind for the next. */
    @BeforeEach
    void machine() {
        m = TestMachine.withDevices(api, "card", devices(), holder, other);
    }

    @Test
    void anExclusiveGrantOfAnyAliasRefusesEveryOtherAliasToOtherRepos() {
        SoftAssertions soft = new SoftAssertions();
        for (List<String> card : List.of(CARD0, AMD)) {
            for (String reserved : card) {
                assertThat(api.grant(m.ref(holder), reserved, true, "0").statusCode()).as(reserved).isEqualTo(202);
                for (String alias : card) {
                    Response shared = api.grant(m.ref(other), alias, false, "0");
                    soft.assertThat(shared.statusCode()).as("%s while %s is exclusive", alias, reserved).isEqualTo(409);
                    soft.assertThat(shared.<List<String>>path("holders.repo")).as(alias).containsExactly("holder");
                    soft.assertThat(shared.<String>path("detail")).as(alias)
                            .contains("by repo holder (" + holder.guid() + ")");
                }
                assertThat(api.revoke(m.ref(holder), reserved, "0").statusCode()).isEqualTo(202);
            }
        }
        soft.assertAll();
    }

    @Test
    void anExclusiveGrantIsRefusedWhileAnotherRepoHoldsAnyAliasOfTheCard() {
        SoftAssertions soft = new SoftAssertions();
        for (List<String> card : List.of(CARD0, AMD)) {
            for (String held : card) {
                assertThat(api.grant(m.ref(other), held, false, "0").statusCode()).as(held).isEqualTo(202);
                for (String alias : card) {
                    Response exclusive = api.grant(m.ref(holder), alias, true, "0");
                    soft.assertThat(exclusive.statusCode()).as("exclusive %s while %s is held", alias, held).isEqualTo(409);
                    soft.assertThat(exclusive.<List<String>>path("holders.device")).as(alias).containsExactly(held);
                }
                assertThat(api.revoke(m.ref(other), held, "0").statusCode()).isEqualTo(202);
            }
        }
        soft.assertAll();
    }

    @Test
    void aReservationCoversTheNameItsCardIsCalledByAndNothingElse() {
        // index 0's node is /dev/nvidia1: a rule by index, or by node minor = index, would get both wrong
        assertThat(api.grant(m.ref(holder), "nvidia.com/gpu=0", true, "0").statusCode()).isEqualTo(202);
        try {
            assertThat(api.grant(m.ref(other), "nvidia.com/gpu=1", true, "0").statusCode()).isEqualTo(202);
            assertThat(api.grant(m.ref(other), "nvidia.com/gpu=GPU-7fc596a7-39e2-3baf-9b3d-888082e87057", false, "0")
                    .statusCode()).isEqualTo(202);
            assertThat(api.grant(m.ref(other), "rediacc.io/dri=renderD128", false, "0").statusCode()).isEqualTo(202);
            assertThat(api.grant(m.ref(other), "rediacc.io/amd=gpu0", true, "0").statusCode()).isEqualTo(202);
            Response refused = api.grant(m.ref(other), "nvidia.com/gpu=all", false, "0");
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(refused.<String>path("detail")).isEqualTo("nvidia.com/gpu=all on " + m.name
                    + " reaches a card reserved exclusively (as nvidia.com/gpu=0) by repo holder (" + holder.guid() + ")");
        } finally {
            for (String d : List.of("nvidia.com/gpu=1", "nvidia.com/gpu=GPU-7fc596a7-39e2-3baf-9b3d-888082e87057",
                    "rediacc.io/dri=renderD128", "rediacc.io/amd=gpu0")) {
                api.revoke(m.ref(other), d, "0");
            }
            api.revoke(m.ref(holder), "nvidia.com/gpu=0", "0");
        }
    }

    @Test
    void theSameRepoMayHoldSeveralNamesOfItsCard() {
        try {
            for (String name : CARD0) {
                assertThat(api.grant(m.ref(holder), name, true, "0").statusCode()).as(name).isEqualTo(202);
            }
            assertThat(api.repoGrants(m.ref(holder)).<List<String>>path("grants.device"))
                    .containsExactlyInAnyOrderElementsOf(CARD0);
        } finally {
            CARD0.forEach(name -> api.revoke(m.ref(holder), name, "0"));
        }
    }

    /**
     * A host whose NVIDIA spec lists no DRM nodes (an older toolkit, or nvidia-drm loaded after the spec
     * was generated): only the PCI addresses node-agent read from sysfs say that card 0's render node is
     * card 0. The render node's exclusive holder must still keep card 0's index, UUID and {@code all}.
     */
    @Test
    void theCardsTheInventoryReadFromSysfsJoinNamesWhoseSpecsShareNoNode() {
        String card0 = "0000:18:00.0";
        String card1 = "0000:28:00.0";
        String uuid0 = "nvidia.com/gpu=GPU-4a99505f-3e4d-385e-a35f-88a51d075281";
        List<String> control = List.of("/dev/nvidiactl", "/dev/nvidia-uvm");
        Map<String, List<String>> nodes = new LinkedHashMap<>();
        nodes.put("nvidia.com/gpu=0", concat(List.of("/dev/nvidia0"), control));
        nodes.put(uuid0, concat(List.of("/dev/nvidia0"), control));
        nodes.put("nvidia.com/gpu=1", concat(List.of("/dev/nvidia1"), control));
        nodes.put("nvidia.com/gpu=all", concat(List.of("/dev/nvidia0", "/dev/nvidia1"), control));
        nodes.put("rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"));
        nodes.put("rediacc.io/dri=renderD129", List.of("/dev/dri/renderD129"));
        Map<String, List<String>> cards = Map.of(
                "nvidia.com/gpu=0", List.of(card0), uuid0, List.of(card0), "nvidia.com/gpu=1", List.of(card1),
                "nvidia.com/gpu=all", List.of(card0, card1),
                "rediacc.io/dri=renderD128", List.of(card0), "rediacc.io/dri=renderD129", List.of(card1));
        TestMachine bySysfs = TestMachine.withDevices(api, "sysfs", nodes, cards, holder, other);

        assertThat(api.grant(bySysfs.ref(holder), "rediacc.io/dri=renderD128", true, "0").statusCode()).isEqualTo(202);
        SoftAssertions soft = new SoftAssertions();
        for (String alias : List.of("nvidia.com/gpu=0", uuid0, "nvidia.com/gpu=all")) {
            Response refused = api.grant(bySysfs.ref(other), alias, false, "0");
            soft.assertThat(refused.statusCode()).as("%s while card 0's render node is exclusive", alias).isEqualTo(409);
            soft.assertThat(refused.<List<String>>path("holders.device")).as(alias)
                    .containsExactly("rediacc.io/dri=renderD128");
        }
        soft.assertThat(api.grant(bySysfs.ref(other), "nvidia.com/gpu=1", false, "0").statusCode())
                .as("card 1 stays free").isEqualTo(202);
        soft.assertThat(api.grant(bySysfs.ref(other), "rediacc.io/dri=renderD129", false, "0").statusCode())
                .as("card 1's render node stays free").isEqualTo(202);
        soft.assertAll();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
