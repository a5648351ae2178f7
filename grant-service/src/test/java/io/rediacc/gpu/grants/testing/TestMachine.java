package io.rediacc.gpu.grants.testing;

import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.testsupport.KafkaTestResource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A machine of a test: a unique name, its devices and repos, published as an inventory and
 * applied by the service before the test goes on.
 */
public final class TestMachine {

    public final String name;
    public final Map<String, List<String>> devices;
    public final List<RepoInfo> repos;
    private final Map<String, List<String>> cards;

    private TestMachine(String name, Map<String, List<String>> devices, Map<String, List<String>> cards,
                        List<RepoInfo> repos) {
        this.name = name;
        this.devices = devices;
        this.cards = cards;
        this.repos = new ArrayList<>(repos);
    }

    /** A two-GPU machine with the given repos, known to the service when this returns. */
    public static TestMachine withRepos(GrantApi api, String prefix, RepoInfo... repos) {
        TestMachine machine = new TestMachine(Fleet.uniqueMachine(prefix), Fleet.TWO_NVIDIA_GPUS, Map.of(), List.of(repos));
        machine.publish(api);
        api.awaitMachine(machine.name);
        return machine;
    }

    /** A machine with the given CDI devices (name to device nodes) and repos, known to the service when this returns. */
    public static TestMachine withDevices(GrantApi api, String prefix, Map<String, List<String>> devices, RepoInfo... repos) {
        return withDevices(api, prefix, devices, Map.of(), repos);
    }

    /** As {@link #withDevices}, each device also placed on the cards (PCI addresses) it reaches. */
    public static TestMachine withDevices(GrantApi api, String prefix, Map<String, List<String>> devices,
                                          Map<String, List<String>> cards, RepoInfo... repos) {
        TestMachine machine = new TestMachine(Fleet.uniqueMachine(prefix), devices, cards, List.of(repos));
        machine.publish(api);
        api.awaitMachine(machine.name);
        return machine;
    }

    /** Republishes the inventory with another repo list (a repo created, deleted or recreated). */
    public void replaceRepos(GrantApi api, RepoInfo... repos) {
        this.repos.clear();
        this.repos.addAll(List.of(repos));
        publish(api);
    }

    public MachineInventory inventory() {
        return Fleet.inventory(name, devices, cards, repos);
    }

    /** {@code repo@machine}. */
    public String ref(RepoInfo repo) {
        return repo.name() + "@" + name;
    }

    private void publish(GrantApi api) {
        Fleet.registeredKey(name, api); // as rdc machine setup registers it, with the test's own credentials
        fleet().publishInventory(inventory());
    }

    private static Fleet shared;

    /** One producer for the tests of a JVM (it reconnects by itself after a broker outage). */
    public static synchronized Fleet fleet() {
        if (shared == null) {
            shared = new Fleet(KafkaTestResource.broker().bootstrapServers());
        }
        return shared;
    }
}
