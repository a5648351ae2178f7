package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.CommandResult;
import io.rediacc.gpu.agent.host.HostCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Asks nvidia-smi for the machine's NVIDIA GPUs. No nvidia-smi, or one that finds none, means no NVIDIA GPU. */
public final class NvidiaSmi {

    /** The GPUs found, and why some could not be read (absent tool, driver not loaded, odd lines). */
    public record Result(List<NvidiaGpu> gpus, List<String> notes) {
    }

    private NvidiaSmi() {
    }

    public static Result query(HostCommands commands, Duration timeout) {
        Optional<CommandResult> run = commands.run(timeout, "nvidia-smi", "--query-gpu=" + NvidiaSmiCsv.GPU_QUERY,
                "--format=csv,noheader,nounits");
        if (run.isEmpty()) {
            return new Result(List.of(), List.of("nvidia-smi is not on the search path: no NVIDIA GPU"));
        }
        if (!run.get().ok()) {
            // e.g. exit 6 "No devices were found", exit 9 "couldn't communicate with the NVIDIA driver"
            return new Result(List.of(), List.of(run.get().failureSummary() + ": no NVIDIA GPU"));
        }
        NvidiaSmiCsv.Parsed parsed = NvidiaSmiCsv.parseGpus(run.get().stdout());
        List<String> notes = new ArrayList<>(parsed.problems());
        List<NvidiaGpu> gpus = new ArrayList<>(parsed.gpus());
        if (!gpus.isEmpty()) {
            Optional<CommandResult> mig = commands.run(timeout, "nvidia-smi", "--query-gpu=" + NvidiaSmiCsv.MIG_QUERY,
                    "--format=csv,noheader");
            if (mig.isPresent() && mig.get().ok()) {
                Map<Integer, String> modes = NvidiaSmiCsv.parseMigModes(mig.get().stdout());
                gpus.replaceAll(g -> g.withMigMode(modes.get(g.index())));
            } else {
                // drivers before MIG do not know the field: no MIG mode is reported then
                mig.ifPresent(r -> notes.add(r.failureSummary()));
            }
        }
        return new Result(gpus, notes);
    }
}
