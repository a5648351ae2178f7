package io.rediacc.gpu.fleet;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Translates Strimzi {@code KafkaUser} resources ({@code spec.authorization.type: simple}) into the
 * Kafka {@link AclBinding}s Strimzi's user operator would create, so a test can apply the
 * deployment's own ACLs to a real broker. Anything the translation does not know fails loudly:
 * a typo in the deployment file must fail the test, not become a silently missing ACL.
 */
final class StrimziAcls {

    /** Strimzi's name for the cluster resource. */
    static final String CLUSTER_NAME = "kafka-cluster";

    private StrimziAcls() {
    }

    /** User name (the SCRAM user, principal {@code User:<name>}) → that user's ACLs, in file order. */
    @SuppressWarnings("unchecked")
    static Map<String, List<AclBinding>> load(Path kafkaUsersYaml) throws IOException {
        Map<String, List<AclBinding>> users = new LinkedHashMap<>();
        for (Map<String, Object> doc : DeploymentFilesTest.yamlDocuments(kafkaUsersYaml)) {
            if (!"KafkaUser".equals(doc.get("kind"))) {
                continue;
            }
            String name = (String) ((Map<String, Object>) doc.get("metadata")).get("name");
            Map<String, Object> spec = (Map<String, Object>) doc.get("spec");
            Map<String, Object> authentication = (Map<String, Object>) spec.get("authentication");
            require(authentication != null && "scram-sha-512".equals(authentication.get("type")),
                    name + ": spec.authentication.type must be scram-sha-512 (the cluster's only listener authenticates with SCRAM)");
            Map<String, Object> authorization = (Map<String, Object>) spec.get("authorization");
            require(authorization != null && "simple".equals(authorization.get("type")),
                    name + ": spec.authorization.type must be simple");
            List<AclBinding> bindings = new ArrayList<>();
            for (Map<String, Object> acl : (List<Map<String, Object>>) authorization.get("acls")) {
                bindings.addAll(bindings(name, acl));
            }
            require(users.put(name, bindings) == null, "KafkaUser " + name + " is defined twice");
        }
        return users;
    }

    @SuppressWarnings("unchecked")
    static List<AclBinding> bindings(String user, Map<String, Object> acl) {
        Map<String, Object> resource = (Map<String, Object>) acl.get("resource");
        require(resource != null, user + ": an ACL without resource: " + acl);
        ResourceType type = switch (String.valueOf(resource.get("type"))) {
            case "topic" -> ResourceType.TOPIC;
            case "group" -> ResourceType.GROUP;
            case "cluster" -> ResourceType.CLUSTER;
            case "transactionalId" -> ResourceType.TRANSACTIONAL_ID;
            default -> throw new IllegalArgumentException(user + ": unknown ACL resource type " + resource.get("type")
                    + " (Strimzi knows topic, group, cluster, transactionalId)");
        };
        String name = type == ResourceType.CLUSTER ? CLUSTER_NAME : (String) resource.get("name");
        require(name != null && !name.isBlank(), user + ": ACL resource without a name: " + resource);
        PatternType pattern = switch (String.valueOf(resource.getOrDefault("patternType", "literal"))) {
            case "literal" -> PatternType.LITERAL;
            case "prefix" -> PatternType.PREFIXED;
            default -> throw new IllegalArgumentException(user + ": unknown patternType " + resource.get("patternType")
                    + " (Strimzi knows literal, prefix)");
        };
        AclPermissionType permission = switch (String.valueOf(acl.getOrDefault("type", "allow"))) {
            case "allow" -> AclPermissionType.ALLOW;
            case "deny" -> AclPermissionType.DENY;
            default -> throw new IllegalArgumentException(user + ": unknown ACL type " + acl.get("type"));
        };
        String host = String.valueOf(acl.getOrDefault("host", "*"));
        List<String> operations = new ArrayList<>();
        if (acl.get("operations") != null) {
            operations.addAll((List<String>) acl.get("operations"));
        }
        if (acl.get("operation") != null) { // the older single-operation form
            operations.add((String) acl.get("operation"));
        }
        require(!operations.isEmpty(), user + ": an ACL without operations: " + acl);
        ResourcePattern resourcePattern = new ResourcePattern(type, name, pattern);
        List<AclBinding> bindings = new ArrayList<>();
        for (String op : operations) {
            bindings.add(new AclBinding(resourcePattern, new AccessControlEntry("User:" + user, host, operation(user, op), permission)));
        }
        return bindings;
    }

    /** Strimzi writes operations in CamelCase ({@code IdempotentWrite}); Kafka's enum is {@code IDEMPOTENT_WRITE}. */
    static AclOperation operation(String user, String strimzi) {
        for (AclOperation op : AclOperation.values()) {
            if (op != AclOperation.UNKNOWN && op != AclOperation.ANY
                    && op.name().replace("_", "").equals(strimzi.toUpperCase(Locale.ROOT))) {
                return op;
            }
        }
        throw new IllegalArgumentException(user + ": unknown ACL operation " + strimzi);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException("deploy/kubernetes/kafka-users.yaml: " + message);
        }
    }
}
