package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.events.RecordRefusal;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.Identifiers;

/**
 * Who may sign which record: the one rule every reader (gate, grant-service, inventory-service and its
 * dashboard) applies before it reads a record, so that no two readers can disagree on whose word a record is.
 * <ul>
 *   <li>a tombstone (null value), on any topic: grant-service, because only its machine-removal path writes them;</li>
 *   <li>{@value Topics#GRANTS} and {@value Topics#GRANT_EVENTS}: grant-service (its outbox relay signs both);</li>
 *   <li>{@value Topics#INVENTORY} and {@value Topics#GATE_DECISIONS} (key {@code machine}) and
 *       {@value Topics#GATE_STATUS} (key {@code machine/gateId}): the machine the record key names, with its
 *       registered key (node-agent and the gate sign with the machine's key);</li>
 *   <li>anything else: nobody, refused.</li>
 * </ul>
 * The payload must then name the same machine as the key ({@link io.rediacc.gpu.contracts.events.RecordBounds}).
 */
public sealed interface RecordAuthority {

    /** Who the refusals and logs name as the expected signer. */
    String who();

    /** grant-service's key signs it. */
    record GrantService() implements RecordAuthority {
        @Override
        public String who() {
            return "grant-service";
        }
    }

    /** The registered key of {@code machine} signs it. */
    record Machine(String machine) implements RecordAuthority {
        @Override
        public String who() {
            return "machine " + machine;
        }
    }

    /** Nobody may sign it: the record key names no machine where one must, or the topic is not ours. */
    record Nobody(RecordRefusal refusal) implements RecordAuthority {
        @Override
        public String who() {
            return "nobody";
        }
    }

    /** Whose key must have signed a record of {@code topic} under {@code key}; a tombstone has a null value. */
    static RecordAuthority of(String topic, String key, boolean tombstone) {
        if (tombstone) {
            return new GrantService();
        }
        if (Topics.GRANTS.equals(topic) || Topics.GRANT_EVENTS.equals(topic)) {
            return new GrantService();
        }
        if (!Topics.INVENTORY.equals(topic) && !Topics.GATE_STATUS.equals(topic) && !Topics.GATE_DECISIONS.equals(topic)) {
            return new Nobody(new RecordRefusal(DropReason.INVALID, "no producer may sign records of topic " + topic));
        }
        String machine = machineOf(topic, key);
        if (machine == null) {
            return new Nobody(new RecordRefusal(DropReason.KEY_MISMATCH, "the record key is not "
                    + (Topics.GATE_STATUS.equals(topic) ? "machine/gateId" : "a machine name") + " as " + topic + " requires"));
        }
        return new Machine(machine);
    }

    /**
     * The machine a record key of {@code topic} speaks for, or null when it names none: the key itself, or on
     * {@value Topics#GATE_STATUS} the part before the one slash of {@code machine/gateId}.
     */
    static String machineOf(String topic, String key) {
        if (key == null) {
            return null;
        }
        String machine = key;
        if (Topics.GATE_STATUS.equals(topic)) {
            int slash = key.indexOf('/');
            if (slash < 0 || key.indexOf('/', slash + 1) >= 0) {
                return null;
            }
            machine = key.substring(0, slash);
        }
        return Identifiers.isMachine(machine) ? machine : null;
    }
}
