package io.rediacc.gpu.agent.machine;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A repo's Docker daemon as the repos manifest describes it for machine setup:
 * <pre>
 *   - name: web
 *     daemon: unix:///run/rediacc/docker-1.sock           # the socket the gate forwards to (used as is)
 *     daemonConfig: /mnt/rediacc/mounts/GUID/.rediacc/docker/config/daemon.json   # host path
 *     daemonRun: /mnt/rediacc/mounts/GUID/.rediacc/docker/run  # optional: the daemon's own /run (host path)
 *     daemonService: rediacc-docker-1.service              # optional: systemd unit restarted after a change
 * </pre>
 * A repo without {@code daemonConfig} is not configured by setup (its daemon is someone else's).
 */
public record RepoDaemon(String repo, String daemon, String daemonConfig, String daemonRun, String daemonService) {

    /** The manifest's repos that name a daemon config, in manifest order; a malformed manifest yields its problem. */
    public record Listing(List<RepoDaemon> daemons, List<String> problems) {
    }

    public static Listing read(Path manifest) {
        String text;
        try {
            text = Files.readString(manifest, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return new Listing(List.of(), List.of());
        } catch (IOException e) {
            return new Listing(List.of(), List.of("cannot read " + manifest + ": " + e.getMessage()));
        }
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (RuntimeException e) {
            return new Listing(List.of(), List.of(manifest + " is not valid YAML"));
        }
        List<RepoDaemon> daemons = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        if (root instanceof Map<?, ?> top && top.get("repos") instanceof List<?> repos) {
            for (Object o : repos) {
                if (!(o instanceof Map<?, ?> r)) {
                    continue;
                }
                String name = str(r.get("name"));
                String config = str(r.get("daemonConfig"));
                if (config == null) {
                    continue;
                }
                String run = str(r.get("daemonRun"));
                if (!config.startsWith("/") || (run != null && !run.startsWith("/"))) {
                    problems.add("repo " + name + ": daemonConfig and daemonRun must be absolute host paths");
                    continue;
                }
                daemons.add(new RepoDaemon(name, str(r.get("daemon")), config, run, str(r.get("daemonService"))));
            }
        }
        return new Listing(daemons, problems);
    }

    private static String str(Object o) {
        return o == null ? null : o.toString();
    }
}
