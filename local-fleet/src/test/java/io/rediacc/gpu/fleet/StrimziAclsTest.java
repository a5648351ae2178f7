package io.rediacc.gpu.fleet;

import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.contracts.kafka.KafkaAcls;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The translation of Strimzi KafkaUser ACLs that {@link KafkaAclIT} applies to its broker. */
class StrimziAclsTest {

    @Test
    void prefixGroupsAndCamelCaseOperationsBecomeKafkasPatternsAndOperations() {
        List<AclBinding> b = StrimziAcls.bindings("docker-gate", Map.of(
                "resource", Map.of("type", "group", "name", "gate-", "patternType", "prefix"),
                "operations", List.of("Read", "IdempotentWrite")));
        assertThat(b).hasSize(2);
        assertThat(b.get(0).pattern().resourceType()).isEqualTo(ResourceType.GROUP);
        assertThat(b.get(0).pattern().patternType()).isEqualTo(PatternType.PREFIXED);
        assertThat(b.get(0).pattern().name()).isEqualTo("gate-");
        assertThat(b.get(0).entry().principal()).isEqualTo("User:docker-gate");
        assertThat(b.get(0).entry().host()).isEqualTo("*");
        assertThat(b.get(0).entry().permissionType()).isEqualTo(AclPermissionType.ALLOW);
        assertThat(b).extracting(x -> x.entry().operation()).containsExactly(AclOperation.READ, AclOperation.IDEMPOTENT_WRITE);
    }

    @Test
    void theSingleOperationFormLiteralDefaultHostAndDenyAreKept() {
        List<AclBinding> b = StrimziAcls.bindings("node-agent", Map.of(
                "resource", Map.of("type", "topic", "name", "gpu.grants.v1"),
                "operation", "Write", "host", "10.0.0.1", "type", "deny"));
        assertThat(b).singleElement().satisfies(x -> {
            assertThat(x.pattern().patternType()).isEqualTo(PatternType.LITERAL);
            assertThat(x.entry().host()).isEqualTo("10.0.0.1");
            assertThat(x.entry().permissionType()).isEqualTo(AclPermissionType.DENY);
            assertThat(x.entry().operation()).isEqualTo(AclOperation.WRITE);
        });
    }

    @Test
    void aTypoInTheDeploymentFileFailsInsteadOfDroppingTheAcl() {
        assertThatThrownBy(() -> StrimziAcls.bindings("grant-service", Map.of(
                "resource", Map.of("type", "topic", "name", "gpu.grants.v1"), "operations", List.of("Wirte"))))
                .hasMessageContaining("unknown ACL operation Wirte");
        assertThatThrownBy(() -> StrimziAcls.bindings("grant-service", Map.of(
                "resource", Map.of("type", "topics", "name", "gpu.grants.v1"), "operations", List.of("Write"))))
                .hasMessageContaining("unknown ACL resource type topics");
        assertThatThrownBy(() -> StrimziAcls.bindings("grant-service", Map.of(
                "resource", Map.of("type", "group", "name", "g", "patternType", "prefixed"), "operations", List.of("Read"))))
                .hasMessageContaining("unknown patternType prefixed");
    }

    @Test
    void everyKafkaUserOfTheDeploymentTranslates() throws IOException {
        Map<String, List<AclBinding>> users = StrimziAcls.load(DeploymentFilesTest.REPO.resolve("deploy/kubernetes/kafka-users.yaml"));
        assertThat(users).as("a new KafkaUser needs its own case in KafkaAclIT").containsOnlyKeys("grant-service", "inventory-service", "monitoring");
        users.forEach((user, acls) -> assertThat(acls).as(user).isNotEmpty());
        assertThat(StrimziAcls.load(DeploymentFilesTest.REPO.resolve("deploy/kubernetes/machine-kafka-user.yaml")))
                .containsOnlyKeys("machine-gpu-host-1");
    }

    /**
     * The deployment's KafkaUsers are contracts' KafkaAccess table, written out: a topic added to Topics, a reader
     * or writer changed there, or an ACL edited in the YAML alone fails here (the one table cannot drift).
     */
    @Test
    void theDeploymentsAclsAreExactlyContractsTable() throws IOException {
        Map<String, List<AclBinding>> users = new java.util.LinkedHashMap<>(
                StrimziAcls.load(DeploymentFilesTest.REPO.resolve("deploy/kubernetes/kafka-users.yaml")));
        users.putAll(StrimziAcls.load(DeploymentFilesTest.REPO.resolve("deploy/kubernetes/machine-kafka-user.yaml")));
        Map<String, List<AclBinding>> table = Map.of(
                KafkaAccess.GRANT_SERVICE, KafkaAcls.bindings(KafkaAccess.GRANT_SERVICE, KafkaAccess.Role.GRANT_SERVICE, null),
                KafkaAccess.INVENTORY_SERVICE, KafkaAcls.bindings(KafkaAccess.INVENTORY_SERVICE, KafkaAccess.Role.INVENTORY_SERVICE, null),
                KafkaAccess.MONITORING, KafkaAcls.bindings(KafkaAccess.MONITORING, KafkaAccess.Role.MONITORING, null),
                "machine-gpu-host-1", KafkaAcls.bindings("machine-gpu-host-1", KafkaAccess.Role.MACHINE, "gpu-host-1"));
        assertThat(users.keySet()).containsExactlyInAnyOrderElementsOf(table.keySet());
        table.forEach((user, acls) -> assertThat(users.get(user)).as(user).containsExactlyInAnyOrderElementsOf(acls));
    }
}
