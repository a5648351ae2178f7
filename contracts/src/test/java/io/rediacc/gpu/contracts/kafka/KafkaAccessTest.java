package io.rediacc.gpu.contracts.kafka;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaAccessTest {

    @Test
    void onlyGrantServiceWritesGrantsAndTheAuditTrail() {
        for (KafkaAccess.Role role : KafkaAccess.Role.values()) {
            if (role != KafkaAccess.Role.GRANT_SERVICE) {
                assertThat(KafkaAccess.writes(role)).as(role.name()).doesNotContain(Topics.GRANTS, Topics.GRANT_EVENTS);
            }
        }
        assertThat(KafkaAccess.writes(KafkaAccess.Role.GRANT_SERVICE)).contains(Topics.GRANTS, Topics.GRANT_EVENTS);
    }

    @Test
    void aMachineWritesWhatItsAgentAndGatePublishAndReadsOnlyGrants() {
        assertThat(KafkaAccess.writes(KafkaAccess.Role.MACHINE))
                .containsExactly(Topics.INVENTORY, Topics.GATE_STATUS, Topics.GATE_DECISIONS);
        assertThat(KafkaAccess.reads(KafkaAccess.Role.MACHINE)).containsExactly(Topics.GRANTS);
        assertThat(KafkaAccess.writes(KafkaAccess.Role.MONITORING)).isEmpty();
        assertThat(KafkaAccess.writes(KafkaAccess.Role.INVENTORY_SERVICE)).isEmpty();
        assertThat(KafkaAccess.reads(KafkaAccess.Role.MONITORING)).hasSize(Topics.ALL.size());
    }

    @Test
    void everyTopicHasAWriterAndAReader() {
        for (Topics.TopicSpec t : Topics.ALL) {
            assertThat(java.util.Arrays.stream(KafkaAccess.Role.values()).anyMatch(r -> KafkaAccess.writes(r).contains(t.name())))
                    .as(t.name() + " has a writer").isTrue();
            assertThat(java.util.Arrays.stream(KafkaAccess.Role.values()).anyMatch(r -> KafkaAccess.reads(r).contains(t.name())))
                    .as(t.name() + " has a reader").isTrue();
        }
    }

    @Test
    void aMachinesBindingsNameItsOwnPrincipalAndItsOwnGatesGroups() {
        String principal = KafkaAccess.machinePrincipal("gpu-host-1");
        assertThat(principal).isEqualTo("machine-gpu-host-1");
        assertThat(KafkaAccess.machineOf(principal)).contains("gpu-host-1");
        assertThat(KafkaAccess.machineOf("grant-service")).isEmpty();
        List<AclBinding> b = KafkaAcls.bindings(principal, KafkaAccess.Role.MACHINE, "gpu-host-1");
        assertThat(b).allSatisfy(x -> assertThat(x.entry().principal()).isEqualTo("User:machine-gpu-host-1"));
        assertThat(b).filteredOn(x -> x.pattern().resourceType() == ResourceType.TOPIC
                        && x.entry().operation() == AclOperation.WRITE)
                .extracting(x -> x.pattern().name()).containsExactlyInAnyOrder(Topics.INVENTORY, Topics.GATE_STATUS, Topics.GATE_DECISIONS);
        assertThat(b).filteredOn(x -> x.pattern().resourceType() == ResourceType.GROUP).allSatisfy(x -> {
            assertThat(x.pattern().name()).isEqualTo("gate-gpu-host-1-");
            assertThat(x.pattern().patternType()).isEqualTo(PatternType.PREFIXED);
        });
        assertThat(b).noneMatch(x -> x.pattern().resourceType() == ResourceType.CLUSTER);
    }

    @Test
    void machineNamesAndPasswordsAreCheckedBeforeTheyReachAJaasLine() {
        assertThatThrownBy(() -> KafkaAccess.machinePrincipal("GPU")).isInstanceOf(InvalidIdentifierException.class);
        assertThatThrownBy(() -> KafkaAccess.machinePrincipal("a\" b")).isInstanceOf(InvalidIdentifierException.class);
        assertThat(KafkaAccess.validPassword("x".repeat(32))).isTrue();
        assertThat(KafkaAccess.validPassword("x".repeat(31))).isFalse();
        assertThat(KafkaAccess.validPassword("x".repeat(31) + "\"")).isFalse();
        assertThatThrownBy(() -> KafkaAccess.jaasConfig("u", "a\" b")).isInstanceOf(IllegalArgumentException.class);
        assertThat(KafkaAccess.jaasConfig("machine-a", "p".repeat(32))).contains("username=\"machine-a\"");
    }

    @Test
    void theMachinesKafkaEnvReadsBackWhatItWrote() {
        String password = MachineKafkaEnv.newPassword();
        assertThat(KafkaAccess.validPassword(password)).isTrue();
        String text = MachineKafkaEnv.render(new MachineKafkaEnv.Login("machine-gpu-host-1", password));
        assertThat(text).contains("KAFKA_SASL_MECHANISM=SCRAM-SHA-512\n");
        assertThat(MachineKafkaEnv.parse(text)).contains(new MachineKafkaEnv.Login("machine-gpu-host-1", password));
        assertThat(MachineKafkaEnv.parse("# nothing\n")).isEmpty();
        assertThat(MachineKafkaEnv.parse(text.replace(password, "short"))).isEmpty();
    }
}
