package io.rediacc.gpu.grants.config;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.jackson.ObjectMapperCustomizer;
import io.rediacc.gpu.contracts.events.EventJson;
import jakarta.inject.Singleton;

/**
 * REST bodies follow the JSON conventions of the events (ISO times, absent instead of null), with
 * one difference: a request with an unknown field is refused, because a misspelt
 * {@code "exclusiv": true} silently ignored would grant a shared device where an exclusive one was meant.
 */
@Singleton
public class EventJsonCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        EventJson.configure(mapper).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }
}
