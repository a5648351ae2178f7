#!/usr/bin/env python3
"""jfr-alloc.py FILE.jfr [N] — where a JFR recording's memory was allocated (jdk.ObjectAllocationSample, whose
weight is the bytes each sample stands for): by allocated class, by the allocating frame (the first frame outside
java.*/jdk.*/sun.*), by library of that frame, and inclusive by frame of the project's own code.

WINDOWS="HH:MM:SS-HH:MM:SS[,...]" (the recording's local times, as jfr-top.sh takes them): only samples inside them.
REQUESTS=N: also the bytes per request, N being the requests the windows served (a bench's wrk count).
GROUPS_OF="name=regex;...": the share of bytes whose stack has a frame matching each regex (inclusive).
"""
import collections
import os
import re
import subprocess
import sys

path = sys.argv[1]
top = int(sys.argv[2]) if len(sys.argv) > 2 else 15
# jfr print's text form, read as it streams (its JSON form of a whole recording does not fit in memory)
proc = subprocess.Popen(["jfr", "print", "--stack-depth", "64", "--events", "jdk.ObjectAllocationSample", path],
                        stdout=subprocess.PIPE, text=True, bufsize=1 << 20)

windows = []
for w in filter(None, os.environ.get("WINDOWS", "").split(",")):
    a, b = w.split("-")
    windows.append((a, b))

UNITS = {"bytes": 1, "byte": 1, "kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3}


def bytes_of(text):
    number, unit = text.split()
    return float(number.replace(",", "")) * UNITS[unit]


def samples():
    """(local time, allocated class, weight in bytes, frames as 'Class.method') of each sample."""
    event = None
    in_stack = False
    for line in proc.stdout:
        line = line.strip()
        if line.startswith("jdk.ObjectAllocationSample"):
            event = {"frames": []}
        elif event is None:
            continue
        elif in_stack:
            if line.startswith("]"):
                in_stack = False
            elif line and line != "...":
                event["frames"].append(line.split("(", 1)[0])
        elif line.startswith("startTime = "):
            event["time"] = line.split()[2][:8]
        elif line.startswith("objectClass = "):
            event["class"] = line[len("objectClass = "):].split(" (", 1)[0]
        elif line.startswith("weight = "):
            event["weight"] = bytes_of(line[len("weight = "):])
        elif line.startswith("stackTrace = ["):
            in_stack = True
        elif line == "}":
            yield event["time"], event.get("class", "?"), event.get("weight", 0), event["frames"]
            event = None


def allocating(frames):
    for n in frames:
        if not n.startswith(("java.", "jdk.", "sun.")):
            return n
    return frames[0] if frames else "?"


by_class, by_frame, by_lib, by_project = (collections.Counter() for _ in range(4))
groups = [g.split("=", 1) for g in filter(None, os.environ.get("GROUPS_OF", "").split(";"))]
by_group = collections.Counter()
total = 0
for time, cls, weight, names in samples():
    if windows and not any(a <= time <= b for a, b in windows):
        continue
    total += weight
    by_class[cls] += weight
    f = allocating(names)
    by_frame[f] += weight
    parts = f.split(".")
    by_lib[".".join(parts[:3])] += weight
    for n in set(x for x in names if x.startswith("io.rediacc")):
        by_project[n] += weight
    for name, regex in groups:
        if any(re.search(regex, n) for n in names):
            by_group[name] += weight

mib = 1024 * 1024
print(f"allocated in the windows (sampled weight): {total / mib:.1f} MiB")
requests = int(os.environ.get("REQUESTS", "0") or 0)
if requests:
    print(f"per request ({requests} requests): {total / requests / 1024:.1f} KiB")


def table(title, counter):
    print(f"-- {title}")
    for k, w in counter.most_common(top):
        print(f"{w / mib:9.1f} MiB {100 * w / max(total, 1):5.1f}%  {k}")


table("by allocated class", by_class)
table("by allocating frame (first outside java.*, jdk.*, sun.*)", by_frame)
table("by library of the allocating frame", by_lib)
table("project frames (inclusive)", by_project)
if groups:
    print("-- by group (inclusive; bytes may count in several)")
    for name, _ in groups:
        print(f"{by_group[name] / mib:9.1f} MiB {100 * by_group[name] / max(total, 1):5.1f}%  {name}")
