#!/usr/bin/env python3
"""Where a build's test time went: per module and the slowest test classes.

    test-times.py REPORTS [MAVEN_LOG] [COUNT]

REPORTS holds <module>/{surefire,failsafe}-reports/TEST-*.xml (what .ci/run copies out of each
module's target/). MAVEN_LOG, when given, is mvn's output: its reactor summaries give each module's
wall time (modules build side by side with -T1C, so those overlap; a one-module run prints no summary:
its time is its phase's in .ci/run). Prints to stdout; a missing or
unreadable report is named and skipped, never an error: this runs after the build, whatever its result.
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET


def suites(reports):
    """(module, kind, class, seconds, tests, failed) for each TEST-*.xml under REPORTS."""
    for xml in sorted(reports.glob("**/TEST-*.xml")):
        kind_dir = xml.parent.name  # surefire-reports | failsafe-reports
        module = xml.parent.parent.relative_to(reports).as_posix() or "."
        kind = "IT" if kind_dir.startswith("failsafe") else "unit"
        try:
            root = ET.parse(xml).getroot()
        except (ET.ParseError, OSError) as e:
            print(f"  (skipped {xml}: {e})")
            continue
        for suite in ([root] if root.tag == "testsuite" else root.iter("testsuite")):
            name = suite.get("name", xml.stem[len("TEST-"):])
            seconds = float(suite.get("time", "0").replace(",", "") or 0)
            tests = int(suite.get("tests", "0"))
            failed = int(suite.get("failures", "0")) + int(suite.get("errors", "0"))
            yield module, kind, name, seconds, tests, failed


def seconds_of(took):
    """Maven's '12.345 s', '02:03 min' or '1:02:03 h' in seconds; None when absent."""
    number = took.split(" ")[0]
    if not number:
        return None
    total = 0.0
    for part in number.split(":"):
        total = total * 60 + float(part)
    return total


def module_wall_times(log):
    """{module name: (status, seconds or None)} from mvn's reactor summary."""
    times = {}
    in_summary = False
    for line in log.read_text(errors="replace").splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)
        if "Reactor Summary" in line:
            in_summary = True
            continue
        if in_summary:
            m = re.match(r"\[INFO\] (.+?) \.*\s*(SUCCESS|FAILURE|SKIPPED)\s*(?:\[\s*([^\]]+)\])?", line)
            if m:
                times[m.group(1).split(":")[0]] = (m.group(2), seconds_of((m.group(3) or "").strip()))
            elif line.startswith("[INFO] ---"):
                in_summary = False  # the log may hold several Maven runs, each with its summary
    return times


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    reports = pathlib.Path(argv[1])
    log = pathlib.Path(argv[2]) if len(argv) > 2 and argv[2] else None
    count = int(argv[3]) if len(argv) > 3 else 10

    if log and log.is_file():
        times = module_wall_times(log)
        if times:
            print("Maven modules (wall time each; -T1C builds them side by side):")
            for module, (status, took) in times.items():
                print(f"  {'' if took is None else f'{took:8.1f} s':>10}  {status:<8} {module}")
        else:
            print(f"no reactor summary in {log} (mvn stopped early?)")

    rows = list(suites(reports)) if reports.is_dir() else []
    if not rows:
        print(f"no test reports under {reports}")
        return 0
    per_module = {}
    for module, kind, _, seconds, tests, failed in rows:
        m = per_module.setdefault((module, kind), [0.0, 0, 0, 0])
        m[0] += seconds
        m[1] += 1
        m[2] += tests
        m[3] += failed
    print("Test time per module (sum of class times; classes of one JVM run one after another):")
    for (module, kind), (seconds, classes, tests, failed) in sorted(per_module.items(), key=lambda kv: -kv[1][0]):
        bad = f", {failed} failed" if failed else ""
        print(f"  {seconds:8.1f} s  {module:<20} {kind:<4} {classes:3d} classes, {tests:4d} tests{bad}")
    total = sum(r[3] for r in rows)
    print(f"  {total:8.1f} s  all: {len(rows)} classes, {sum(r[4] for r in rows)} tests")
    print(f"The {count} slowest test classes:")
    for module, kind, name, seconds, tests, failed in sorted(rows, key=lambda r: -r[3])[:count]:
        bad = f", {failed} failed" if failed else ""
        print(f"  {seconds:8.1f} s  {module:<20} {kind:<4} {name.rsplit('.', 1)[-1]} ({tests} tests{bad})")
    print(f"Reports: {reports}/<module>/surefire-reports, failsafe-reports")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
