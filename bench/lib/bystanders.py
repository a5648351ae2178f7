#!/usr/bin/env python3
"""bystanders.py STAGES_GLOB OWN_JVM_GLOB — the Kafka leg (record CreateTime -> a bystander had it) of the same records
as seen by grant-propagation.sh's in-driver bystander (its stages files: op grant t0 ce_time produced seen flip api
bytes) and by KafkaBystander in a JVM of its own (produced seen), matched by their produced time; p50/p90/p99 of each
and of the difference, in ms."""
import glob
import sys


def pct(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    i = max(1, int(len(v) * p / 100 + 0.999))
    return v[i - 1]


driver = {}
for f in glob.glob(sys.argv[1]):
    for line in open(f):
        parts = line.split()
        if len(parts) >= 6 and parts[4].isdigit() and parts[5].isdigit():
            driver[int(parts[4])] = int(parts[5])
own = {}
for f in glob.glob(sys.argv[2]):
    for line in open(f):
        produced, seen = map(int, line.split())
        own[produced] = seen
common = sorted(set(driver) & set(own))
legs = {"in the driver's JVM": [(driver[p] - p) / 1000 for p in common],
        "in a JVM of its own": [(own[p] - p) / 1000 for p in common],
        "driver's minus own's": [(driver[p] - own[p]) / 1000 for p in common]}
print(f"records matched: {len(common)} (driver's {len(driver)}, own JVM's {len(own)})")
print("| Kafka leg, ms | p50 | p90 | p99 |")
print("|---|---|---|---|")
for name, v in legs.items():
    print(f"| {name} | {pct(v, 50):.2f} | {pct(v, 90):.2f} | {pct(v, 99):.2f} |")
