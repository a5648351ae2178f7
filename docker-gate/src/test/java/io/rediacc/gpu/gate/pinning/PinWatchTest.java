package io.rediacc.gpu.gate.pinning;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.contracts.manifest.ReposManifest;
import io.rediacc.gpu.gate.policy.RepoIdentity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The pin watcher against stand-in repo daemons on unix sockets ({@link EventDaemons}), with real pins (as root):
 * a thousand repos followed by one thread, each repo's stream requested before its first sweep, a destroy
 * event unpinning, destroys in the windows around the first sweep not lost, a burst of destroys costing
 * one or two sweeps, and a repo leaving the manifest no longer followed.
 */
class PinWatchTest extends OneRepoPins {

    private static final String GUID = "88888888-8888-4888-8888-888888888888";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private EventDaemons daemons;
    private PinWatch watch;

    PinWatchTest() {
        super("watched", GUID);
    }

    @BeforeEach
    void startDaemons() throws IOException {
        daemons = new EventDaemons();
    }

    @AfterEach
    void stop() throws Exception {
        if (watch != null) {
            watch.close();
        }
        daemons.close();
    }

    private PinWatch watch(Pins pins) {
        watch = new PinWatch(pins, r -> new RepoIdentity(r.name(), r.guid(), repo.machine(), false));
        return watch;
    }

    /** A manifest of these repos: name → (guid, daemon socket). */
    private ReposManifest manifest(List<String[]> repos) {
        StringBuilder yaml = new StringBuilder("machine: " + repo.machine() + "\nrepos:\n");
        for (String[] r : repos) {
            yaml.append("  - name: ").append(r[0]).append("\n    guid: ").append(r[1])
                    .append("\n    listen: tcp://127.0.0.1:0\n    daemon: unix://").append(r[2]).append('\n');
        }
        return ManifestLoader.parse(yaml.toString().getBytes(StandardCharsets.UTF_8));
    }

    private EventDaemons.Daemon oneDaemon() {
        return daemons.start(dir.resolve("d.sock"));
    }

    private ReposManifest thisRepo() {
        return manifest(List.<String[]>of(new String[] {repo.name(), GUID, dir.resolve("d.sock").toString()}));
    }

    /**
     * The live pin-watch threads other than {@code others}: the other test classes of this JVM start gates too, and
     * one of theirs may still be stopping (CI once saw two threads here), so a test counts only the threads its own
     * watcher started.
     */
    private static List<String> watcherThreads(Set<Thread> others) {
        return watcherThreadSet().stream().filter(t -> !others.contains(t)).map(Thread::getName).toList();
    }

    private static Set<Thread> watcherThreadSet() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("gate-pin") && !t.getName().equals("gate-pins-io"))
                .collect(java.util.stream.Collectors.toSet());
    }

    @Test
    void aThousandReposAreFollowedByOneThreadEachStreamRequestedBeforeItsFirstSweep() throws IOException {
        int n = 1000;
        Path sockets = Files.createDirectories(dir.resolve("s"));
        List<String[]> repos = new ArrayList<>();
        List<EventDaemons.Daemon> each = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path socket = sockets.resolve(i + ".sock");
            each.add(daemons.start(socket));
            repos.add(new String[] {"r" + i, String.format("%08x-0000-4000-8000-%012x", i, i), socket.toString()});
        }
        Set<Thread> others = watcherThreadSet();
        PinWatch w = watch(pins());
        w.serve(manifest(repos));

        await("every daemon followed and swept").atMost(WAIT).pollInterval(Duration.ofMillis(100)).until(() ->
                each.stream().allMatch(d -> d.openStreams.get() == 1 && d.containerLists.get() >= 1));
        assertThat(watcherThreads(others)).containsExactly(PinWatch.THREAD_NAME);
        // the stream first, then the sweep: a removal after the sweep listed is in the stream
        assertThat(each).allSatisfy(d -> assertThat(d.firstRequest).isEqualTo("/events"));
        assertThat(each.get(0).lastEventsQuery).contains("since=").contains("until=").contains("destroy");

        // a burst of destroys while the daemon cannot answer a list: one sweep for the first, one more for the rest
        EventDaemons.Daemon burst = each.get(7);
        int before = burst.containerLists.get();
        daemons.run(() -> {
            for (int i = 0; i < 100; i++) {
                burst.destroyNowForTest("c" + i);
            }
        });
        await("the burst's sweeps").atMost(WAIT).until(() -> burst.containerLists.get() > before);
        await().during(Duration.ofSeconds(1)).atMost(WAIT).until(() -> burst.containerLists.get() - before <= 2);

        w.close();
        assertThat(watcherThreads(others)).isEmpty();
        await("streams closed").atMost(WAIT).until(() -> each.stream().allMatch(d -> d.openStreams.get() == 0));
    }

    @Test
    void aDestroyEventRemovesTheContainersPins() {
        EventDaemons.Daemon d = oneDaemon();
        Pins pins = pins();
        String token = create(pins, 1);
        d.addContainer("c1", token);
        watch(pins).serve(thisRepo());

        await("first sweep").atMost(WAIT).until(() -> d.containerLists.get() >= 1 && d.openStreams.get() == 1);
        assertThat(pins.pins(repo)).hasSize(2); // its container exists: the pins stay

        d.destroyContainer("c1");
        await("pins removed").atMost(WAIT).until(() -> pins.pins(repo).isEmpty());
        pins.flush();
        assertThat(BindPinner.mountsUnder(pinRoot)).isEmpty();
    }

    @Test
    void aDestroyRightAfterTheFirstSweepListedIsNotLost() {
        EventDaemons.Daemon d = oneDaemon();
        Pins pins = pins();
        d.addContainer("c1", create(pins, 1));
        d.destroyAfterNextList("c1", false);
        watch(pins).serve(thisRepo());

        await("pins removed").atMost(WAIT).until(() -> pins.pins(repo).isEmpty());
        assertThat(d.containerLists.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aDestroyBetweenTheStreamsHeadAndItsSubscriptionIsReplayedFromSince() {
        EventDaemons.Daemon d = oneDaemon();
        Pins pins = pins();
        d.addContainer("c1", create(pins, 1));
        // dockerd sends the stream's head, then subscribes: the first sweep lists, the container goes, then it subscribes
        d.holdSubscriptions();
        d.destroyAfterNextList("c1", true);
        watch(pins).serve(thisRepo());

        await("pins removed").atMost(WAIT).until(() -> pins.pins(repo).isEmpty());
    }

    /**
     * The streams vouch for the data plane's kept volume answers (issue 34): nothing is kept before a stream of the
     * daemon answered, a volume's answer goes at its destroy, all go at a line the watcher cannot read and when the
     * stream fails, and an answer read before any of that is not kept. A container's destroy leaves them.
     */
    @Test
    void volumeAnswersAreKeptOnlyWhileTheDaemonsStreamVouchesForThem() {
        byte[] plain = "{\"Name\":\"v\",\"Driver\":\"local\",\"Options\":null}".getBytes(StandardCharsets.UTF_8);
        io.rediacc.gpu.contracts.manifest.SocketEndpoint daemon = thisRepo().repos().get(0).daemon();
        io.rediacc.gpu.gate.policy.VolumeAnswers answers = new io.rediacc.gpu.gate.policy.VolumeAnswers();
        long beforeAnyStream = answers.beforeLookup(daemon);
        answers.keep(daemon, "early", plain, beforeAnyStream);
        assertThat(beforeAnyStream).isEqualTo(io.rediacc.gpu.gate.policy.VolumeAnswers.DO_NOT_KEEP);
        assertThat(answers.answer(daemon, "early")).isNull();

        EventDaemons.Daemon d = oneDaemon();
        Pins pins = pins();
        watch = new PinWatch(pins, r -> new RepoIdentity(r.name(), r.guid(), repo.machine(), false), answers);
        watch.serve(thisRepo());
        await("the stream answered").atMost(WAIT).until(() -> answers.beforeLookup(daemon) != io.rediacc.gpu.gate.policy.VolumeAnswers.DO_NOT_KEEP);

        answers.keep(daemon, "cache", plain, answers.beforeLookup(daemon));
        answers.keep(daemon, "other", plain, answers.beforeLookup(daemon));
        assertThat(answers.answer(daemon, "cache")).isEqualTo(plain);
        long readBeforeTheDestroy = answers.beforeLookup(daemon);

        d.destroyVolume("cache");
        await("the destroyed volume's answer forgotten").atMost(WAIT).until(() -> answers.answer(daemon, "cache") == null);
        assertThat(answers.answer(daemon, "other")).as("another volume's answer stays").isEqualTo(plain);
        answers.keep(daemon, "cache", plain, readBeforeTheDestroy);
        assertThat(answers.answer(daemon, "cache")).as("an answer read before the destroy is not kept").isNull();

        int lists = d.containerLists.get();
        d.addContainer("c1", "token");
        d.destroyContainer("c1");
        await("the container's destroy swept").atMost(WAIT).until(() -> d.containerLists.get() > lists);
        assertThat(answers.answer(daemon, "other")).as("a container's destroy leaves volume answers").isEqualTo(plain);

        d.sendLine("{not json");
        await("all forgotten at an unreadable line").atMost(WAIT).until(() -> answers.answer(daemon, "other") == null);

        answers.keep(daemon, "third", plain, answers.beforeLookup(daemon));
        assertThat(answers.answer(daemon, "third")).isEqualTo(plain);
        d.dropStreams();
        await("all forgotten when the stream fails").atMost(WAIT).until(() -> answers.answer(daemon, "third") == null);
        assertThat(answers.size()).isZero();
    }

    @Test
    void aRepoRemovedFromTheManifestIsNoLongerFollowed() {
        EventDaemons.Daemon d = oneDaemon();
        Pins pins = pins();
        d.addContainer("c1", create(pins, 1));
        PinWatch w = watch(pins);
        w.serve(thisRepo());
        await("followed").atMost(WAIT).until(() -> d.containerLists.get() >= 1 && d.openStreams.get() == 1);

        w.serve(new ReposManifest(repo.machine(), List.of()));
        await("stream closed").atMost(WAIT).until(() -> d.openStreams.get() == 0);
        int lists = d.containerLists.get();
        int streams = d.streamRequests.get();
        d.destroyContainer("c1");
        await().during(Duration.ofSeconds(2)).atMost(WAIT).until(() -> d.containerLists.get() == lists
                && d.streamRequests.get() == streams);
        assertThat(pins.pins(repo)).hasSize(2); // not swept: the repo is not this gate's any more

        w.serve(thisRepo()); // back in the manifest: followed again, and its reconnection sweeps
        await("pins removed").atMost(WAIT).until(() -> pins.pins(repo).isEmpty());
        assertThat(d.openStreams.get()).isEqualTo(1);
    }
}
