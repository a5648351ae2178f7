package io.rediacc.gpu.contracts.cdi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The CDI devices one spec directory (e.g. {@code /etc/cdi}) defines. Like the reference cache:
 * only {@code *.yaml}, {@code *.yml} and {@code *.json} files directly in the directory count; an
 * invalid file is skipped and reported; a device name defined by two files is dropped and reported
 * (which definition a runtime would pick is not ours to guess).
 */
public final class CdiSpecDirectory {

    /** A device as resolved from the directory: its name, its spec, and its own definition. */
    public record ResolvedDevice(CdiName name, CdiSpec spec, CdiSpec.Device device) {
        /** The device's own node paths, followed by the spec-wide ones it also brings in. */
        public List<String> deviceNodes() {
            List<String> nodes = new ArrayList<>(device.containerEdits().deviceNodePaths());
            for (String p : spec.containerEdits().deviceNodePaths()) {
                if (!nodes.contains(p)) {
                    nodes.add(p);
                }
            }
            return nodes;
        }
    }

    /** The directory's specs, its usable devices by qualified name (sorted) and the problems found. */
    public record Contents(List<CdiSpec> specs, Map<String, ResolvedDevice> devices, List<String> problems) {
        public Contents {
            specs = List.copyOf(specs);
            devices = Collections.unmodifiableMap(new TreeMap<>(devices));
            problems = List.copyOf(problems);
        }

        public List<String> deviceNames() {
            return List.copyOf(devices.keySet());
        }
    }

    private CdiSpecDirectory() {
    }

    /** Loads every spec of {@code dir}. A missing directory has no devices and no problems. */
    public static Contents load(Path dir) {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(CdiSpecDirectory::isSpecFile).sorted().toList();
        } catch (NoSuchFileException e) {
            return new Contents(List.of(), Map.of(), List.of());
        } catch (IOException e) {
            return new Contents(List.of(), Map.of(), List.of(dir + ": cannot list spec directory: " + e.getMessage()));
        }
        List<CdiSpec> specs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            try {
                specs.add(CdiSpecParser.parse(file.toString(), Files.readAllBytes(file)));
            } catch (InvalidCdiSpecException e) {
                problems.add(e.getMessage());
            } catch (IOException e) {
                problems.add(file + ": cannot read: " + e.getMessage());
            }
        }
        return resolve(specs, problems);
    }

    /** Merges already parsed specs as if they shared one directory. */
    public static Contents resolve(List<CdiSpec> specs, List<String> problemsSoFar) {
        List<String> problems = new ArrayList<>(problemsSoFar);
        Map<String, ResolvedDevice> devices = new LinkedHashMap<>();
        Map<String, List<String>> definedBy = new LinkedHashMap<>();
        for (CdiSpec spec : specs) {
            List<CdiName> names = spec.qualifiedNames();
            for (int i = 0; i < names.size(); i++) {
                String q = names.get(i).qualified();
                definedBy.computeIfAbsent(q, k -> new ArrayList<>()).add(spec.source());
                devices.putIfAbsent(q, new ResolvedDevice(names.get(i), spec, spec.devices().get(i)));
            }
        }
        definedBy.forEach((name, sources) -> {
            if (sources.size() > 1) {
                devices.remove(name);
                problems.add("device " + name + " is defined by more than one spec (" + String.join(", ", sources)
                        + "); it is unusable until only one defines it");
            }
        });
        return new Contents(specs, devices, problems);
    }

    private static boolean isSpecFile(Path p) {
        String n = p.getFileName().toString();
        return Files.isRegularFile(p) && (n.endsWith(".yaml") || n.endsWith(".yml") || n.endsWith(".json"));
    }
}
