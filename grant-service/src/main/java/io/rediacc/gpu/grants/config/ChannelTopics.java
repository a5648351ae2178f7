package io.rediacc.gpu.grants.config;

import io.rediacc.gpu.contracts.events.Topics;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.Map;
import java.util.Set;

/**
 * Binds the messaging channels to their topics from {@link Topics}, so topic names live only in
 * the contracts module and never in {@code application.properties}. Low ordinal: a property can
 * still override them.
 */
public class ChannelTopics implements ConfigSource {

    /** Channel of {@link Topics#INVENTORY}. */
    public static final String INVENTORY = "inventory";
    /** Channel of {@link Topics#GATE_STATUS}. */
    public static final String GATE_STATUS = "gate-status";

    private static final Map<String, String> PROPERTIES = Map.of(
            "mp.messaging.incoming." + INVENTORY + ".topic", Topics.INVENTORY,
            "mp.messaging.incoming." + GATE_STATUS + ".topic", Topics.GATE_STATUS);

    @Override
    public Map<String, String> getProperties() {
        return PROPERTIES;
    }

    @Override
    public Set<String> getPropertyNames() {
        return PROPERTIES.keySet();
    }

    @Override
    public String getValue(String propertyName) {
        return PROPERTIES.get(propertyName);
    }

    @Override
    public String getName() {
        return "grant-service-channel-topics";
    }

    @Override
    public int getOrdinal() {
        return 50;
    }
}
