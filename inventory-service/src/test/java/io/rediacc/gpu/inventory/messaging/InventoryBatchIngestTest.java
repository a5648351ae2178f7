package io.rediacc.gpu.inventory.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.IngestCounter;
import io.rediacc.gpu.inventory.support.Inventories;
import io.rediacc.gpu.inventory.support.TableRows;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;

/**
 * The consumer takes a whole poll at once and applies it in one transaction. These tests hand it
 * batches directly (the broker decides how records fall into polls, a test cannot), and check that
 * a batch leaves exactly what applying its records one at a time would have left.
 */
@QuarkusTest
@FleetResources
class InventoryBatchIngestTest {

    private static final AtomicLong OFFSETS = new AtomicLong(1_000_000);

    @Inject
    InventoryConsumer consumer;

    @Inject
    MeterRegistry registry;

    @Test
    void ofTwoVersionsOfAMachineInOneBatchTheNewerWinsWhicheverComesFirst() {
        String newerFirst = Inventories.uniqueMachine("batch-newer-first");
        String olderFirst = Inventories.uniqueMachine("batch-older-first");
        Instant now = Inventories.now();
        IngestCounter ignored = IngestCounter.watch(registry, Topics.INVENTORY, "not-newer");

        consume(record(Inventories.nvidiaHost(newerFirst, now, 4, "NVIDIA H100 80GB HBM3")),
                record(Inventories.nvidiaHost(newerFirst, now.minusSeconds(30), 1, "NVIDIA A10")),
                record(Inventories.nvidiaHost(olderFirst, now.minusSeconds(30), 1, "NVIDIA A10")),
                record(Inventories.nvidiaHost(olderFirst, now, 4, "NVIDIA H100 80GB HBM3")));

        for (String machine : List.of(newerFirst, olderFirst)) {
            asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200)
                    .body("gpus", hasSize(4))
                    .body("gpus[0].name", equalTo("NVIDIA H100 80GB HBM3"))
                    .body("cdiDevices", hasSize(5))
                    .body("generatedAt", equalTo(now.toString()));
            assertThat(asViewer().get("/api/v1/machines/{m}/inventory", machine).then().extract().asString())
                    .contains("H100").doesNotContain("A10\"");
        }
        ignored.awaitAtLeast(1);
    }

    @Test
    void aTombstoneAndRecordsInOneBatchApplyInOffsetOrder() {
        String leaving = Inventories.uniqueMachine("batch-leaving");
        String returning = Inventories.uniqueMachine("batch-returning");
        String bystander = Inventories.uniqueMachine("batch-bystander");
        Instant now = Inventories.now();
        consume(record(Inventories.nvidiaHost(returning, now.minusSeconds(60))));

        consume(record(Inventories.nvidiaHost(leaving, now.minusSeconds(10))),
                tombstone(leaving, Instant.now()), // signed after the machine's key registration, as a removal is
                // signed before returning's registration: an old removal replayed, it removes nothing (issue 31)
                tombstone(returning, now.minusSeconds(5)),
                record(Inventories.nvidiaHost(returning, now, 3, "NVIDIA L4")),
                record(Inventories.nvidiaHost(bystander, now)));

        asViewer().get("/api/v1/machines/{m}", leaving).then().statusCode(404);
        asViewer().get("/api/v1/machines/{m}/inventory", leaving).then().statusCode(404);
        asViewer().get("/api/v1/machines/{m}", returning).then().statusCode(200)
                .body("gpus", hasSize(3)).body("gpus[0].name", equalTo("NVIDIA L4"));
        asViewer().get("/api/v1/machines/{m}", bystander).then().statusCode(200).body("gpus", hasSize(2));
    }

    /**
     * Issue 31 in one poll: a verified removal revokes the key it was looked up with, so the machine's later record
     * in the same poll is judged as after the removal — unregistered — though the poll's keys were read before it.
     * The poll is large enough to be checked on several worker threads (PollWorkers), the removal and the later
     * record in different shares of it: the verdicts must be those of checking the records one at a time.
     */
    @Test
    void aRemovalRevokesTheKeyForTheMachinesLaterRecordsInTheSamePoll() {
        String leaving = Inventories.uniqueMachine("batch-revoked");
        Instant now = Inventories.now();
        List<ConsumerRecord<String, byte[]>> batch = new ArrayList<>();
        List<String> bystanders = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            String bystander = Inventories.uniqueMachine("batch-revoked-bystander");
            bystanders.add(bystander);
            batch.add(record(Inventories.nvidiaHost(bystander, now)));
        }
        batch.add(1, record(Inventories.nvidiaHost(leaving, now.minusSeconds(10))));
        batch.add(2, tombstone(leaving, Instant.now())); // signed after the key's registration, as a removal is
        batch.add(60, record(Inventories.nvidiaHost(leaving, now))); // signed with the key the removal revokes
        assertThat(batch.size()).isGreaterThan(4 * PollWorkers.INLINE_UP_TO);
        double unregistered = dropped("unregistered-machine");

        consumer.ingest(batch).await().atMost(Duration.ofSeconds(30));

        assertThat(dropped("unregistered-machine")).isGreaterThanOrEqualTo(unregistered + 1);
        asViewer().get("/api/v1/machines/{m}", leaving).then().statusCode(404);
        for (String bystander : List.of(bystanders.get(0), bystanders.get(40), bystanders.get(63))) {
            asViewer().get("/api/v1/machines/{m}", bystander).then().statusCode(200).body("gpus", hasSize(2));
        }
    }

    private double dropped(String reason) {
        return registry.find("inventory.input.dropped").tag("topic", Topics.INVENTORY).tag("reason", reason).counters()
                .stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    @Test
    void aTombstoneOlderThanTheInventoryHeldRemovesNothing() {
        String machine = Inventories.uniqueMachine("batch-late-tombstone");
        Instant now = Inventories.now();
        consume(record(Inventories.nvidiaHost(machine, now)), tombstone(machine, now.minusSeconds(30)));

        asViewer().get("/api/v1/machines/{m}", machine).then().statusCode(200).body("gpus", hasSize(2));
    }

    @Test
    void replayingABatchChangesNoRow() {
        Instant now = Inventories.now();
        List<ConsumerRecord<String, byte[]>> batch = new ArrayList<>();
        List<String> machines = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String machine = Inventories.uniqueMachine("batch-replay");
            machines.add(machine);
            batch.add(record(Inventories.nvidiaHost(machine, now.minusSeconds(i))));
        }
        consumer.ingest(batch).await().atMost(Duration.ofSeconds(30));
        List<String> before = TableRows.of(machines);
        IngestCounter replays = IngestCounter.watch(registry, Topics.INVENTORY, "not-newer");

        consumer.ingest(batch).await().atMost(Duration.ofSeconds(30));

        replays.awaitAtLeast(3);
        assertThat(TableRows.of(machines)).isNotEmpty().isEqualTo(before);
    }

    @Test
    void aHeartbeatInABatchRewritesNoList() {
        String machine = Inventories.uniqueMachine("batch-heartbeat");
        Instant first = Inventories.now().minusSeconds(60);
        consume(record(Inventories.nvidiaHost(machine, first)));
        List<String> gpuIds = TableRows.gpuIds(machine);
        IngestCounter refreshed = IngestCounter.watch(registry, Topics.INVENTORY, "refreshed");

        consume(record(Inventories.nvidiaHost(machine, first.plusSeconds(30))),
                record(Inventories.nvidiaHost(machine, first.plusSeconds(60))));

        refreshed.awaitAtLeast(2);
        asViewer().get("/api/v1/machines/{m}", machine).then().body("generatedAt", equalTo(first.plusSeconds(60).toString()));
        assertThat(TableRows.gpuIds(machine)).as("the same rows, not rewritten ones").isEqualTo(gpuIds);
    }

    /** Issue 34: a new inventory rewrites only the lists it changed (a driver upgrade: the GPU rows). */
    @Test
    void aChangeRewritesOnlyTheListsItChanged() {
        String machine = Inventories.uniqueMachine("batch-one-list");
        Instant first = Inventories.now().minusSeconds(60);
        consume(record(Inventories.nvidiaHost(machine, first)));
        List<String> gpus = TableRows.ids("gpu", machine);
        List<String> devices = TableRows.ids("cdi_device", machine);
        List<String> repos = TableRows.ids("machine_repo", machine);

        MachineInventory upgraded = Inventories.nvidiaHost(machine, first.plusSeconds(30), 2, "NVIDIA A100-SXM4-80GB");
        consume(record(upgraded));

        asViewer().get("/api/v1/machines/{m}", machine).then().body("gpus[0].name", equalTo("NVIDIA A100-SXM4-80GB"))
                .body("cdiDevices", hasSize(3)).body("repos", hasSize(2));
        assertThat(TableRows.ids("gpu", machine)).as("new GPU rows").doesNotContainAnyElementsOf(gpus).hasSize(2);
        assertThat(TableRows.ids("cdi_device", machine)).as("the same device rows, not rewritten ones").isEqualTo(devices);
        assertThat(TableRows.ids("machine_repo", machine)).as("the same repo rows").isEqualTo(repos);

        // one repo fewer: only the repo rows change
        MachineInventory oneRepo = new MachineInventory(upgraded.schemaVersion(), machine, upgraded.platform(),
                upgraded.agentVersion(), first.plusSeconds(60), upgraded.gpus(), upgraded.cdiDevices(), upgraded.toolkit(),
                upgraded.persistencedSocket(), upgraded.repos().subList(0, 1), upgraded.specProblems());
        List<String> upgradedGpus = TableRows.ids("gpu", machine);
        consume(record(oneRepo));

        asViewer().get("/api/v1/machines/{m}", machine).then().body("repos", hasSize(1)).body("gpus", hasSize(2));
        assertThat(TableRows.ids("gpu", machine)).isEqualTo(upgradedGpus);
        assertThat(TableRows.ids("cdi_device", machine)).isEqualTo(devices);
        assertThat(TableRows.ids("machine_repo", machine)).hasSize(1).doesNotContainAnyElementsOf(repos);
    }

    @Test
    void poisonRecordsInABatchAreSkippedAndCountedAndTheRestIsApplied() {
        String first = Inventories.uniqueMachine("batch-poison-a");
        String second = Inventories.uniqueMachine("batch-poison-b");
        IngestCounter rejected = IngestCounter.watch(registry, Topics.INVENTORY, "rejected");
        IngestCounter applied = IngestCounter.watch(registry, Topics.INVENTORY, "applied");

        consume(raw(first, "not json at all".getBytes(StandardCharsets.UTF_8), Instant.now()),
                record(Inventories.nvidiaHost(first, Inventories.now())),
                raw(second, EventJson.toBytes(Inventories.nvidiaHost("someone-else-" + second, Instant.now())), Instant.now()),
                raw(null, null, Instant.now()),
                record(Inventories.nvidiaHost(second, Inventories.now())));

        rejected.awaitAtLeast(3);
        applied.awaitAtLeast(2);
        asViewer().get("/api/v1/machines/{m}", first).then().statusCode(200).body("gpus", hasSize(2));
        asViewer().get("/api/v1/machines/{m}", second).then().statusCode(200).body("gpus", hasSize(2));
        asViewer().get("/api/v1/machines/{m}", "someone-else-" + second).then().statusCode(404);
    }

    @SafeVarargs
    private void consume(ConsumerRecord<String, byte[]>... records) {
        consumer.ingest(List.of(records)).await().atMost(Duration.ofSeconds(30));
    }

    private static ConsumerRecord<String, byte[]> record(MachineInventory inventory) {
        return raw(inventory.machine(), EventJson.toBytes(inventory), Instant.now());
    }

    private static ConsumerRecord<String, byte[]> tombstone(String machine, Instant at) {
        return raw(machine, null, at);
    }

    private static ConsumerRecord<String, byte[]> raw(String key, byte[] value, Instant at) {
        // signed as its author would sign it (the machine's registered key; a tombstone: grant-service's)
        java.util.Map<String, byte[]> signed = new java.util.LinkedHashMap<>(io.rediacc.gpu.contracts.events.CloudEventHeaders.of(
                Topics.INVENTORY_TOPIC, "/tests", key, java.util.UUID.randomUUID().toString(), at));
        io.rediacc.gpu.inventory.support.TestKeys.sign(Topics.INVENTORY, key, signed, value);
        RecordHeaders headers = new RecordHeaders();
        signed.forEach(headers::add);
        return new ConsumerRecord<>(Topics.INVENTORY, 0, OFFSETS.incrementAndGet(), at.toEpochMilli(),
                TimestampType.CREATE_TIME, -1, -1, key, value, headers, Optional.empty());
    }
}
