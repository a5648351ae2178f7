package io.rediacc.gpu.grants.messaging;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RecordBounds;
import io.rediacc.gpu.grants.config.ChannelTopics;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.repository.GrantWrites;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.grants.service.InventoryCopy;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

import java.time.Duration;

/**
 * Reads {@code gpu.inventory.v1} into the service's tables. A record that is not an inventory is
 * logged and skipped (one bad producer must not stop the fleet's updates); a database failure is
 * retried for a while, then skipped too: the node-agent re-publishes on its heartbeat.
 */
@ApplicationScoped
public class InventoryConsumer {

    private static final Logger LOG = Logger.getLogger(InventoryConsumer.class);

    private final InventoryCopy inventories;
    private final GrantsConfig config;
    private final DroppedRecords dropped;

    private final GrantWrites writes;
    private final SignedRecords signed;

    public InventoryConsumer(InventoryCopy inventories, GrantWrites writes,
                             GrantsConfig config, DroppedRecords dropped, SignedRecords signed) {
        this.signed = signed;
        this.inventories = inventories;
        this.writes = writes;
        this.config = config;
        this.dropped = dropped;
    }

    @Incoming(ChannelTopics.INVENTORY)
    public Uni<Void> consume(ConsumerRecord<String, byte[]> record) {
        // whose word it is first: nothing of an unsigned or foreign record is read
        return signed.check(record).chain(refusal -> dropped.readUnlessRefused(record, refusal, this::read));
    }

    private Uni<Void> read(ConsumerRecord<String, byte[]> record) {
        if (record.value() == null) {
            // a removed machine (DELETE /api/v1/machines/{machine}): forget its inventory; grants are not
            // touched here (the removal revoked them, and any other grant stays revocable)
            if (record.key() == null || !Identifiers.isMachine(record.key())) {
                LOG.warnf("skipping a tombstone whose key is not a machine name (%s)", record.key());
                return Uni.createFrom().voidItem();
            }
            return writes.inTransaction(c -> writes.lockAndForget(c, record.key()))
                    .onFailure().recoverWithItem(e -> {
                        LOG.errorf("could not forget machine %s (%s)", record.key(), e.getMessage());
                        return null;
                    });
        }
        var admitted = dropped.admit(record, MachineInventory.class, "a machine inventory",
                (key, value, at, now) -> RecordBounds.inventory(key, value, at, now, config.input().maxClockSkew()));
        if (admitted == null) {
            return Uni.createFrom().voidItem();
        }
        MachineInventory inventory = admitted.value();
        org.apache.kafka.common.header.Header keyId = record.headers().lastHeader(
                io.rediacc.gpu.contracts.signing.RecordSignature.KEY_ID);
        return inventories.apply(inventory, admitted.publishedAt(),
                        new String(keyId.value(), java.nio.charset.StandardCharsets.US_ASCII)) // present: verified
                .onFailure().retry().withBackOff(Duration.ofMillis(200), Duration.ofSeconds(5)).atMost(8)
                .onFailure().recoverWithItem(e -> {
                    LOG.errorf("could not store the inventory of %s (%s); it is applied with the next one",
                            inventory.machine(), e.getMessage());
                    return false;
                })
                .replaceWithVoid();
    }
}
