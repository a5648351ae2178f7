#!/usr/bin/env bash
# Bench — issue 30's leak check through a real daemon, as root: one real dockerd 28.5 (Debian's
# packages from the cache, test-support/real-dockerd's launcher, the tests' imported image) and the
# gate in front of it (StandaloneGates: started as the application starts it, pinning on), a repo with
# a hostPaths root; then <cycles> create/remove cycles through the gate's unix socket over raw HTTP:
# 1 bind under hostPaths, every 10th 8 binds, every 10th a Mounts bind, every 10th beside a local
# volume o=bind (created before, removed after), every 10th AutoRemove started and left for the
# daemon to remove (the gate unpins on its GET /events destroy). At the end (after waiting at most
# 60 s for those events) it prints the pin entries, pin records (the gate's memory and its record on
# disk), pin mounts in /proc/self/mountinfo, the daemon's mounts, containers and volumes left, and
# create/rm p50/p99; exit 1 if anything leaked or a request failed. A progress line every 500 cycles;
# SIGTERM/SIGINT end the cycles early with the same checks and a partial summary (exit 130 when
# nothing leaked). The gate and dockerd run under nice -n 10 (the driver's JVM is the gate, with the
# deployed unit's compiler and collector; dockerd is its child), so other builds on the machine are not
# starved. Takes ~0.3 s a cycle at load 10 on 2 cores: the default is ~1 hour.
#   bench/gate-pin-leak.sh [cycles=10000]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "gate-pin-leak: run as root (real dockerd, mount(2))" >&2; exit 2; }
export REDIACC_DOCKERD_CACHE="${REDIACC_DOCKERD_CACHE:-/var/cache/rediacc-gpu/dockerd}"
# The dependency plugin by its full version: the bare prefix resolves 2.8, which an offline ~/.m2 lacks.
mvn -B -q -o -pl docker-gate -am test-compile org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -DskipTests \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test >/dev/null
echo "gate-pin-leak: $(date -u +'%Y-%m-%d %H:%M:%S UTC'), commit $(git rev-parse --short=12 HEAD), uptime:$(uptime)"
# From docker-gate/, as surefire runs the tests (the test grant key lies in its target/); exec: a signal
# to this script's pid reaches the JVM, which then prints its partial summary.
cd docker-gate
exec nice -n 10 java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx512m \
  -cp "target/test-classes:target/classes:$(cat target/test-classpath.txt)" \
  io.rediacc.gpu.gate.pinning.PinLeakBench "${1:-10000}"
