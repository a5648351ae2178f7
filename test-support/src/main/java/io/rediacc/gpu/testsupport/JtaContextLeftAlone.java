package io.rediacc.gpu.testsupport;

import io.smallrye.context.SmallRyeContextManagerProvider;
import io.smallrye.context.SmallRyeThreadContext;
import org.eclipse.microprofile.context.ThreadContext;
import org.eclipse.microprofile.context.spi.ThreadContextProvider;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service that never opens a JTA transaction (reactive client, Hibernate Reactive) sets
 * {@code mp.context.ThreadContext.unchanged=Transaction}, so that SmallRye does not capture and restore Narayana's
 * context around every Mutiny step of every request: checks it holds for the injectable ThreadContext and for the one
 * Mutiny's context propagation builds from the same defaults, and that CDI's context still travels.
 */
public final class JtaContextLeftAlone {

    private JtaContextLeftAlone() {
    }

    /** Call from a {@code @QuarkusTest} with the application's injected {@link SmallRyeThreadContext}. */
    public static void assertFor(SmallRyeThreadContext injected) {
        SmallRyeThreadContext mutinys = (SmallRyeThreadContext) SmallRyeContextManagerProvider.instance().getContextManager()
                .newThreadContextBuilder().build();
        for (SmallRyeThreadContext context : List.of(injected, mutinys)) {
            assertThat(types(context.getPlan().unchangedProviders)).contains(ThreadContext.TRANSACTION);
            assertThat(types(context.getPlan().propagatedProviders))
                    .contains(ThreadContext.CDI).doesNotContain(ThreadContext.TRANSACTION);
            assertThat(types(context.getPlan().clearedProviders)).doesNotContain(ThreadContext.TRANSACTION);
        }
    }

    private static List<String> types(Set<ThreadContextProvider> providers) {
        return providers.stream().map(ThreadContextProvider::getThreadContextType).toList();
    }
}
