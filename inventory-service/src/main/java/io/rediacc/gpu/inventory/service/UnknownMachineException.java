package io.rediacc.gpu.inventory.service;

/** No inventory of this machine has been received (or it left the fleet). */
public class UnknownMachineException extends RuntimeException {

    private final String machine;

    public UnknownMachineException(String machine) {
        super("no inventory of machine \"" + machine + "\" has been received");
        this.machine = machine;
    }

    public String machine() {
        return machine;
    }
}
