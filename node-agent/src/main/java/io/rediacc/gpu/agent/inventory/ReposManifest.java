package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The repos manifest the machine's docker-gate serves ({@code /etc/rediacc/gate/repos.yaml}):
 * <pre>
 * machine: m1            # optional
 * repos:
 *   - name: web
 *     guid: 3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43
 *     forkOf: 0c1d...    # optional: the GUID it was forked from
 *     listen: ...        # the gate's business; ignored here, like any other key
 * </pre>
 * The agent only reports name, GUID and fork parent. An entry with an invalid name or GUID is left
 * out and reported; one bad entry does not hide the others.
 */
public final class ReposManifest {

    /** The manifest's machine name (if it names one), its valid repos, and what was wrong. */
    public record Contents(Optional<String> machine, List<RepoInfo> repos, List<String> warnings) {
        public static final Contents EMPTY = new Contents(Optional.empty(), List.of(), List.of());
    }

    private ReposManifest() {
    }

    public static Contents read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Contents.EMPTY; // no gate on this machine (yet): no repos
        } catch (IOException e) {
            return new Contents(Optional.empty(), List.of(), List.of(file + ": cannot read: " + e.getMessage()));
        }
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(new String(bytes, StandardCharsets.UTF_8));
        } catch (RuntimeException e) {
            return new Contents(Optional.empty(), List.of(), List.of(file + ": not valid YAML: " + firstLine(e.getMessage())));
        }
        if (root == null) {
            return Contents.EMPTY;
        }
        if (!(root instanceof Map<?, ?> top)) {
            return new Contents(Optional.empty(), List.of(), List.of(file + ": expected a mapping with a \"repos\" list"));
        }
        List<String> warnings = new ArrayList<>();
        Optional<String> machine = Optional.empty();
        Object m = top.get("machine");
        if (m != null) {
            if (m instanceof String s && Identifiers.isMachine(s)) {
                machine = Optional.of(s);
            } else {
                warnings.add(file + ": machine \"" + m + "\" is not a valid machine name; ignored");
            }
        }
        List<RepoInfo> repos = new ArrayList<>();
        Object list = top.get("repos");
        if (list != null && !(list instanceof List<?>)) {
            warnings.add(file + ": \"repos\" must be a list");
        } else if (list != null) {
            Set<String> guids = new HashSet<>();
            int i = 0;
            for (Object entry : (List<?>) list) {
                String where = file + ": repos[" + i++ + "]";
                if (!(entry instanceof Map<?, ?> repo)) {
                    warnings.add(where + ": expected a mapping with name and guid");
                    continue;
                }
                try {
                    String name = Identifiers.repoName(text(repo.get("name")));
                    String guid = Identifiers.repoGuid(text(repo.get("guid")));
                    String forkOf = null;
                    if (repo.get("forkOf") != null) {
                        try {
                            forkOf = Identifiers.repoGuid(text(repo.get("forkOf")));
                        } catch (InvalidIdentifierException e) {
                            warnings.add(where + " (" + name + "): forkOf: " + e.getMessage() + "; reported without a fork parent");
                        }
                    }
                    if (!guids.add(guid)) {
                        warnings.add(where + " (" + name + "): GUID " + guid + " is listed twice; the first entry counts");
                        continue;
                    }
                    repos.add(new RepoInfo(name, guid, forkOf));
                } catch (InvalidIdentifierException e) {
                    warnings.add(where + ": " + e.getMessage() + "; entry left out");
                }
            }
        }
        return new Contents(machine, repos, warnings);
    }

    private static String text(Object v) {
        return v == null ? null : v.toString();
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }
}
