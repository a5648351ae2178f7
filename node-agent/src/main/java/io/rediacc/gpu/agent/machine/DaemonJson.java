package io.rediacc.gpu.agent.machine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * What a repo daemon's {@code daemon.json} must say for granted CDI devices to work, and nothing
 * else: CDI on ({@code features.cdi: true}, needed on Docker 25.0–28.1, the default from 28.2),
 * specs read from {@code /etc/cdi} only ({@code cdi-spec-dirs}: a spec can add host mounts and
 * hooks, so no directory a repo could write to), and runc as the default runtime (a default
 * {@code nvidia} runtime hands out GPUs from an image's {@code NVIDIA_VISIBLE_DEVICES}, past
 * every grant). Every other key is kept as it is.
 */
public final class DaemonJson {

    public static final String CDI_DIR = "/etc/cdi";

    /** The merged document and what changed, one phrase each; no changes means the file is left alone. */
    public record Merge(ObjectNode document, List<String> changes) {
        public boolean changed() {
            return !changes.isEmpty();
        }
    }

    private DaemonJson() {
    }

    /** Merges the product's keys into {@code current} (not modified) for a daemon of {@code version}, on a machine. */
    public static Merge merge(ObjectNode current, DockerVersion version) {
        return merge(current, version, CDI_DIR);
    }

    /**
     * As {@link #merge(ObjectNode, DockerVersion)}, with the machine's {@code /etc/cdi} as its daemons
     * see it: {@code /etc/cdi} on a machine; on a simulated machine (a root directory on a test host,
     * whose daemons run on that host) {@code <root>/etc/cdi}, its specs — never the host's own.
     */
    public static Merge merge(ObjectNode current, DockerVersion version, String cdiDir) {
        ObjectNode doc = current.deepCopy();
        List<String> changes = new ArrayList<>();
        JsonNode features = doc.get("features");
        JsonNode cdi = features == null ? null : features.get("cdi");
        boolean cdiOn = cdi != null && cdi.isBoolean() && cdi.booleanValue();
        // on by default from 28.2, but an explicit false (or a non-boolean) still turns it off
        if (!cdiOn && (cdi != null || version.before(28, 2))) {
            ObjectNode f = features instanceof ObjectNode o ? o : doc.putObject("features");
            f.put("cdi", true);
            changes.add("features.cdi " + (cdi == null ? "unset" : cdi.toString()) + " -> true");
        }
        ArrayNode dirs = JsonNodeFactory.instance.arrayNode().add(cdiDir);
        if (!dirs.equals(doc.get("cdi-spec-dirs"))) {
            changes.add("cdi-spec-dirs " + (doc.has("cdi-spec-dirs") ? doc.get("cdi-spec-dirs").toString() : "unset (default [\"/etc/cdi\",\"/var/run/cdi\"])")
                    + " -> " + dirs);
            doc.set("cdi-spec-dirs", dirs);
        }
        JsonNode runtime = doc.get("default-runtime");
        if (runtime != null && !(runtime.isTextual() && runtime.textValue().equals("runc"))) {
            changes.add("default-runtime " + runtime + " removed (runc)");
            doc.remove("default-runtime");
        }
        return new Merge(doc, changes);
    }
}
