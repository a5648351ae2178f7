package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;

import java.util.Map;

/** No inventory of this machine has been received (or it left the fleet): 404 unknown-machine. */
public class UnknownMachineException extends ApiProblem {

    private final String machine;

    public UnknownMachineException(String machine) {
        super(ProblemType.UNKNOWN_MACHINE, "no inventory of machine \"" + machine + "\" has been received",
                "check the name with 'rdc machine list' (GET /api/v1/machines); a machine appears once its node-agent has published an inventory",
                Map.of("machine", machine));
        this.machine = machine;
    }

    public String machine() {
        return machine;
    }
}
