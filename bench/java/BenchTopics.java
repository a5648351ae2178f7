import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Creates the product's topics (contracts Topics.ALL, real cleanup policies, 4 partitions) and bench.latency. */
public class BenchTopics {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        long deadline = System.currentTimeMillis() + 300_000; // a loaded machine starts a broker slowly
        while (true) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000))) {
                List<NewTopic> topics = new ArrayList<>();
                for (Topics.TopicSpec spec : Topics.ALL) {
                    Map<String, String> cfg = new HashMap<>();
                    cfg.put("cleanup.policy", spec.cleanupPolicy());
                    topics.add(new NewTopic(spec.name(), 4, (short) 1).configs(cfg));
                }
                // the anchor of grant propagation: plain records on the same broker
                topics.add(new NewTopic("bench.latency", 1, (short) 1).configs(Map.of("cleanup.policy", "delete")));
                // the same anchor on a topic shaped as gpu.grants.v1 (KafkaLatency SHAPE=grants): 4 partitions, its policy
                topics.add(new NewTopic("bench.latency.grants", 4, (short) 1).configs(Map.of("cleanup.policy",
                        Topics.ALL.stream().filter(t -> t.name().equals(Topics.GRANTS)).findFirst().orElseThrow().cleanupPolicy())));
                for (var f : admin.createTopics(topics).values().values()) {
                    try {
                        f.get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw e;
                        }
                    }
                }
                System.out.println("topics ready: " + admin.listTopics().names().get());
                return;
            } catch (Exception e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }
}
