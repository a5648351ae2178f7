#!/usr/bin/env python3
"""Package cycles of each module: the strongly connected components (more than one package) of the
graph of package dependencies inside the module's compiled classes, as jdeps reads them.

Usage: ROOT=<checkout> python3 .ci/package-cycles.py <module> [<module>...]
Each module is read from <ROOT>/<module>/target/classes (compile it first: mvn -pl <module> -am compile).
Prints, per module, every cycle (its packages, and the edges between them with the classes that make
each one) and exits 1 when any module has a cycle, 2 when a module has no compiled classes.
"""
import os
import re
import subprocess
import sys

EDGE = re.compile(r"^\s+(\S+)\s+->\s+(\S+)\s+(\S.*)$")


def packages(classes):
    """The packages that have classes in a module's compiled classes (multi-release versions left out)."""
    found = set()
    for directory, _, files in os.walk(classes):
        rel = os.path.relpath(directory, classes)
        if rel.startswith("META-INF") or not any(f.endswith(".class") for f in files):
            continue
        found.add("" if rel == "." else rel.replace(os.sep, "."))
    return found


def jdeps(class_dirs, verbose):
    """Package (or class) edges inside compiled classes, for several modules in one jdeps run (each run costs a JVM
    start and the JDK's module graph: twelve runs took ~10 s of CI's CPU). An edge inside compiled classes, not to a
    library or the JDK, ends in an archive jdeps names after the directory: "classes"."""
    out = subprocess.run(["jdeps", "-verbose:" + verbose, "-filter:none", "--multi-release", "17", *class_dirs],
                         check=True, capture_output=True, text=True).stdout
    edges = []
    for line in out.splitlines():
        m = EDGE.match(line)
        if m and m.group(3).strip() == "classes":
            edges.append((m.group(1), m.group(2)))
    return edges


def components(nodes, graph):
    """Tarjan's strongly connected components (iterative: a deep package graph must not hit the recursion limit)."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = 0
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def package_of(cls):
    return cls.rsplit(".", 1)[0] if "." in cls else ""


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = os.environ.get("ROOT", os.getcwd())
    status = 0
    modules = {}
    for module in argv[1:]:
        classes = os.path.join(root, module, "target", "classes")
        if not os.path.isdir(classes):
            print(f"{module}: no {classes}; compile it first (mvn -pl {module} -am compile)", file=sys.stderr)
            status = max(status, 2)
            continue
        modules[module] = (classes, packages(classes))
    # one jdeps run for every module; an edge belongs to the module that holds both its packages (a package in
    # two modules would join their graphs, so it is named and checked with each)
    owners = {}
    for module, (_, own) in modules.items():
        for package in own:
            owners.setdefault(package, []).append(module)
    for package, held in sorted(owners.items()):
        if len(held) > 1:
            print(f"package {package} is in several modules: {', '.join(held)}")
    all_edges = jdeps([classes for classes, _ in modules.values()], "package") if modules else []
    for module, (classes, own) in modules.items():
        graph, nodes = {}, set(own)
        for source, target in all_edges:
            if source in own and target in own and source != target:
                graph.setdefault(source, set()).add(target)
        cycles = components(nodes, graph)
        print(f"{module}: {len(nodes)} packages, {len(cycles)} cycle(s)")
        if not cycles:
            continue
        status = max(status, 1)
        class_edges = jdeps([classes], "class")
        for cycle in cycles:
            members = set(cycle)
            print("  cycle: " + ", ".join(cycle))
            for source in cycle:
                for target in sorted(graph.get(source, set()) & members):
                    why = sorted({f"{s.rsplit('.', 1)[-1]} -> {t.rsplit('.', 1)[-1]}" for s, t in class_edges
                                  if package_of(s) == source and package_of(t) == target})
                    print(f"    {source} -> {target}: {'; '.join(why[:6])}{' ...' if len(why) > 6 else ''}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
