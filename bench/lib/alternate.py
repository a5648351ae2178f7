#!/usr/bin/env python3
"""Runs labelled commands round-robin and prints each one's wall and CPU time.

  alternate.py RUNS LABEL COMMAND [LABEL COMMAND ...]

COMMAND is one shell-quoted string (bash's printf %q). Each command runs once first (a warm-up that
must succeed; its output is shown if it fails), then RUNS rounds of every command in turn, so a load
change on a shared machine hits all of them alike. Per command: median and minimum wall time
(perf_counter around fork to exit) and median user+sys CPU time of the process tree (wait4).
"""
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv):
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime


def main():
    runs = int(sys.argv[1])
    pairs = sys.argv[2:]
    commands = [(pairs[i], shlex.split(pairs[i + 1])) for i in range(0, len(pairs), 2)]
    for label, argv in commands:
        if subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            print(f"failed: {label}: {' '.join(argv)}", file=sys.stderr)
            subprocess.run(argv, stdout=subprocess.DEVNULL)
            sys.exit(1)
    walls = {label: [] for label, _ in commands}
    cpus = {label: [] for label, _ in commands}
    for _ in range(runs):
        for label, argv in commands:
            wall, cpu = run(argv)
            walls[label].append(wall)
            cpus[label].append(cpu)
    for label, _ in commands:
        print(f"{label:<34} wall {statistics.median(walls[label]):6.3f} s (min {min(walls[label]):5.3f})"
              f"   cpu {statistics.median(cpus[label]):6.3f} s")


if __name__ == "__main__":
    main()
