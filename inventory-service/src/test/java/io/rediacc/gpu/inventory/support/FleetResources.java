package io.rediacc.gpu.inventory.support;

import io.quarkus.test.common.QuarkusTestResource;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The real things every test of this service runs against: the embedded Kafka broker, a fresh
 * PostgreSQL database, and a topic history published before the application starts.
 */
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(PostgresTestResource.class)
@QuarkusTestResource(TopicHistoryBeforeStart.class)
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface FleetResources {
}
