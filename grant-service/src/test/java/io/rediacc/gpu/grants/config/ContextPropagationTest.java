package io.rediacc.gpu.grants.config;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.testsupport.JtaContextLeftAlone;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.smallrye.context.SmallRyeThreadContext;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** No JTA transaction is ever open in grant-service: its context is left alone (application.properties). */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class ContextPropagationTest {

    @Inject
    SmallRyeThreadContext injected;

    @Test
    void jtaContextIsLeftAloneAndCdiStillPropagates() {
        JtaContextLeftAlone.assertFor(injected);
    }
}
