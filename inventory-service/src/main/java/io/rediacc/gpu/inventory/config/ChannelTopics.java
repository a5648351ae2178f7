package io.rediacc.gpu.inventory.config;

import io.rediacc.gpu.contracts.events.Topics;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.Map;
import java.util.Set;

/**
 * Binds the messaging channels to their topics from {@link Topics}, so topic names live only in the
 * contracts module and never in {@code application.properties} (grant-service's ChannelTopics does
 * the same for its channels). The channels are named after their topics; only
 * {@code gpu.inventory.v1} needs its topic spelled out, because it runs with {@code concurrency}: its
 * copies are the channels {@code gpu.inventory.v1$1}, {@code $2}…, and without a {@code topic} each
 * would read a topic of its own name. The key is quoted as SmallRye looks it up for a channel name
 * with dots. Low ordinal: a property can still override it.
 */
public class ChannelTopics implements ConfigSource {

    /** The inventory channel's {@code topic} property, which every concurrent copy of the channel inherits. */
    public static final String INVENTORY_TOPIC_PROPERTY = "mp.messaging.incoming.\"" + Topics.INVENTORY + "\".topic";

    private static final Map<String, String> PROPERTIES = Map.of(INVENTORY_TOPIC_PROPERTY, Topics.INVENTORY);

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
        return "inventory-service-channel-topics";
    }

    @Override
    public int getOrdinal() {
        return 50;
    }
}
