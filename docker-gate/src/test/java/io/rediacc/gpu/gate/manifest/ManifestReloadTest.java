package io.rediacc.gpu.gate.manifest;

import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The gate follows its manifest: repos added, removed or broken while it runs. */
class ManifestReloadTest {

    private static String repo(String name, String guid, String listen, String daemon) {
        return """
                  - name: %s
                    guid: %s
                    listen: %s
                    daemon: %s
                """.formatted(name, guid, listen, daemon);
    }

    @Test
    void addedReposAreServedRemovedOnesAreNotAndABrokenManifestChangesNothing(@TempDir Path dir) throws Exception {
        KafkaTestResource.broker().restart();
        Path manifest = dir.resolve("repos.yaml");
        Path socketB = dir.resolve("b.sock");
        try (StandaloneGates gates = new StandaloneGates();
             StandInDockerd daemonA = StandInDockerd.startTcp();
             StandInDockerd daemonB = StandInDockerd.startUnix(dir.resolve("daemon-b.sock"))) {
            String repoA = repo("a", "aaaaaaaa-0000-4000-8000-000000000001", "tcp://127.0.0.1:0", daemonA.address());
            Files.writeString(manifest, "machine: m-reload\nrepos:\n" + repoA);
            try (Gate gate = gates.start(manifest, dir.resolve("state"), "gate-reload")) {
                assertThat(gate.boundAddress("b")).isEmpty();

                String group = Files.readAttributes(dir, java.nio.file.attribute.PosixFileAttributes.class).group().getName();
                Files.writeString(manifest, "machine: m-reload\nrepos:\n" + repoA
                        + repo("b", "bbbbbbbb-0000-4000-8000-000000000002", "unix://" + socketB, daemonB.address())
                        + "    listenMode: \"0660\"\n    listenGroup: " + group + "\n");
                Await.until("repo b served", Duration.ofSeconds(10), () -> gate.boundAddress("b").isPresent());
                assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(socketB)))
                        .isEqualTo("rw-rw----");
                DockerCli.Result version = new DockerCli("unix://" + socketB).run("version", "--format", "{{.Server.APIVersion}}");
                assertThat(version.stdout().trim()).as(version.toString()).isEqualTo("1.50");
                assertThat(daemonB.saw("HEAD", "/_ping") || daemonB.saw("GET", "/_ping")).isTrue();
                // only the gate's own verification (GET /info, GET /version) reached repo a's daemon
                // (and the pin watcher's sweeps of the containers and volumes carrying its label)
                assertThat(daemonA.received()).filteredOn(r -> !r.uri().startsWith("/containers/json?all=1&filters=")
                                && !r.uri().startsWith("/volumes?filters=") && !r.uri().startsWith("/events?"))
                        .allSatisfy(r -> assertThat(r.method() + " " + r.uri()).isIn("GET /info", "GET /version"));

                Files.writeString(manifest, "machine: m-reload\nrepos:\n  - name: [broken\n");
                Await.until("the broken manifest read and refused", Duration.ofSeconds(10),
                        () -> gate.manifestVersionsRefused() == 1);
                assertThat(gate.listenerCount()).as("a broken manifest leaves the previous one in force").isEqualTo(2);

                Files.writeString(manifest, "machine: m-reload\nrepos:\n" + repoA);
                Await.until("repo b no longer served", Duration.ofSeconds(10), () -> gate.boundAddress("b").isEmpty());
                assertThat(socketB).doesNotExist();
                int port = ((InetSocketAddress) gate.boundAddress("a").orElseThrow()).getPort();
                DockerCli.Result stillA = new DockerCli("tcp://127.0.0.1:" + port).run("version", "--format",
                        "{{.Server.APIVersion}}");
                assertThat(stillA.stdout().trim()).as(stillA.toString()).isEqualTo("1.50");
            }
        }
    }
}
