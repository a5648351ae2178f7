package io.rediacc.gpu.agent.publish;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes the machine's inventory to {@link Topics#INVENTORY} (key = machine), one record at a
 * time. Only the latest state waits to be sent: a state superseded while Kafka is unreachable is
 * dropped, not queued, because the topic is compacted and consumers want the newest picture. A
 * failed send is retried with the latest state after a growing pause (backoff), until it lands.
 */
public final class InventoryPublisher implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(InventoryPublisher.class);

    private final Producer<String, byte[]> producer;
    private final String source;
    private final RecordSigner signer;
    private final Duration backoffMin;
    private final Duration backoffMax;
    private final Duration sendTimeout;
    private final Thread thread;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    private MachineInventory pending; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param source      the CloudEvents source of every record, e.g. {@code /node-agent/m1}
     * @param signer      the machine's key: every record is signed (docs/EVENTS.md, "Signed records")
     * @param sendTimeout longest wait for one acknowledgement (the producer's own delivery timeout plus slack)
     */
    public InventoryPublisher(Producer<String, byte[]> producer, String source, RecordSigner signer, Duration backoffMin,
                              Duration backoffMax, Duration sendTimeout) {
        this.producer = producer;
        this.source = source;
        this.signer = signer;
        this.backoffMin = backoffMin;
        this.backoffMax = backoffMax;
        this.sendTimeout = sendTimeout;
        this.thread = new Thread(this::loop, "inventory-publisher");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Makes {@code inventory} the state to publish next, replacing any state not sent yet. */
    public synchronized void offer(MachineInventory inventory) {
        pending = inventory;
        notifyAll();
    }

    /** How many records Kafka acknowledged. */
    public long publishedCount() {
        return published.get();
    }

    /** How many sends failed (each is retried after its backoff). */
    public long failedCount() {
        return failed.get();
    }

    private void loop() {
        Duration backoff = backoffMin;
        while (true) {
            MachineInventory next;
            synchronized (this) {
                while (pending == null && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                next = pending;
                pending = null;
            }
            try {
                producer.send(record(next)).get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
                published.incrementAndGet();
                if (backoff.compareTo(backoffMin) > 0) {
                    LOG.infof("inventory of %s published again after Kafka was unreachable", next.machine());
                }
                backoff = backoffMin;
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                synchronized (this) {
                    if (closed) {
                        return; // shutting down: the interrupted send is not a failure to report
                    }
                    if (pending == null) {
                        pending = next; // nothing newer arrived: this state is still the one to publish
                    }
                }
                failed.incrementAndGet();
                LOG.warnf("cannot publish the inventory of %s to %s (%s); retrying in %d ms", next.machine(),
                        Topics.INVENTORY, rootMessage(e), backoff.toMillis());
                if (!pause(backoff)) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(backoffMax) > 0 ? backoffMax : backoff.multipliedBy(2);
            }
        }
    }

    private synchronized boolean pause(Duration d) {
        long until = System.nanoTime() + d.toNanos();
        try {
            while (!closed) {
                long left = until - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            return false;
        }
        return false;
    }

    private ProducerRecord<String, byte[]> record(MachineInventory inventory) {
        byte[] value = EventJson.toBytes(inventory);
        Map<String, byte[]> ce = CloudEventHeaders.of(Topics.INVENTORY_TOPIC, source, inventory.machine());
        signer.sign(Topics.INVENTORY, inventory.machine(), ce, value);
        List<org.apache.kafka.common.header.Header> headers = new ArrayList<>();
        ce.forEach((k, v) -> headers.add(new RecordHeader(k, v)));
        return new ProducerRecord<>(Topics.INVENTORY, null, inventory.machine(), value, headers);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }
}
