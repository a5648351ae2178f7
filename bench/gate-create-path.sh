#!/usr/bin/env bash
# Bench — the policy's CPU per create in process (issue 34), as root: bench/gate-dataplane.sh's 4 KiB create
# body with 0, 1 and 8 host binds, rounds interleaved, through onHead, onBody, onVolumes, pin and the commit of
# the daemon's 201, as the data plane calls them; the event loop's thread CPU per create (judge / pin / commit)
# and the process's CPU per create (journal writes, unmounts of the pins swept every 100 creates, JIT, GC).
# No network: the gate's CPU per create in gate-dataplane.sh minus this is what Netty and the daemon round
# trips add. Then the kernel's floor of a pinned bind: the same system calls from C (lib/pin-syscalls.c), CPU
# per pin and per removal.
#   bench/gate-create-path.sh [rounds=3000] [floor pins=2000]      JFR=1: a recording and its jfr-top summary in the work dir
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "gate-create-path: run as root (mount(2))" >&2; exit 2; }
work="$(mktemp -d /tmp/gate-create-path.XXXXXX)"
trap 'rm -rf "$work"' EXIT
[ "${JFR:-0}" = 1 ] && trap - EXIT
mvn -B -q -o -pl docker-gate -am test-compile org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath -DskipTests \
  -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test >/dev/null
bodies=()
for b in 0 1 8; do
  python3 bench/lib/create-body.py nvidia.com/gpu=0 4096 "$work/host" "$b" >"$work/create-$b-binds.json"
  bodies+=("$work/create-$b-binds.json")
done
jfr=()
[ "${JFR:-0}" = 1 ] && jfr=(-XX:StartFlightRecording=settings=profile,filename="$work/create-path.jfr")
java "${jfr[@]}" -cp "docker-gate/target/test-classes:docker-gate/target/classes:$(cat docker-gate/target/test-classpath.txt)" \
  io.rediacc.gpu.gate.policy.CreatePathBench "$work/host" "${1:-3000}" "${bodies[@]}"
gcc -O2 -o "$work/pin-syscalls" bench/lib/pin-syscalls.c
"$work/pin-syscalls" "$work/host" srv/datasets "$work/pins" "${2:-2000}"
if [ "${JFR:-0}" = 1 ]; then
  bench/lib/jfr-top.sh "$work/create-path.jfr" 25 >"$work/create-path.jfr-top.txt"
  echo "recording: $work/create-path.jfr; summary: $work/create-path.jfr-top.txt"
fi
