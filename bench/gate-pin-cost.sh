#!/usr/bin/env bash
# Bench — what pinning bind sources adds to a create in the gate (issue 30), as root: GatePolicy.pin
# (parse, openat2 beneath the root, judge, mount(2) + MS_PRIVATE, dev/ino check, rewrite, record
# saved) for create bodies with 0, 1 and 8 binds in the same run, rounds interleaved, and the
# release of those pins; then 10,000 pin/release cycles, after which no mount, pin entry or record
# may be left (exit 1 otherwise). Target: <= 1 ms p50 per pinned bind.
#   bench/gate-pin-cost.sh [rounds=2000] [cycles=10000]
set -euo pipefail
# The dependency plugin by its full version: the bare prefix resolves 2.8, which an offline ~/.m2 lacks.
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "gate-pin-cost: run as root (mount(2))" >&2; exit 2; }
mvn -B -q -o -pl docker-gate -am test-compile org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -DskipTests \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test >/dev/null
java -cp "docker-gate/target/test-classes:docker-gate/target/classes:$(cat docker-gate/target/test-classpath.txt)" \
  io.rediacc.gpu.gate.policy.PinCostBench "${1:-2000}" "${2:-10000}"
