#!/usr/bin/env bash
# Bench — the policy's CPU per create in process (issue 34), as root: bench/gate-dataplane.sh's 4 KiB create
# body with 0, 1 and 8 host binds, rounds interleaved, through onHead, onBody, onVolumes, pin and the commit of
# the daemon's 201, as the data plane calls them; the event loop's thread CPU per create (judge / pin / commit)
# and the process's CPU per create (journal writes, unmounts of the pins swept every 100 creates, JIT, GC).
# No network: the gate's CPU per create in gate-dataplane.sh minus this is what Netty and the daemon round
# trips add. Then the kernel's floor of a pinned bind: the same system calls from C (lib/pin-syscalls.c), CPU
# per pin and per removal.
# The policy's own table ends with the judging alone two ways, rounds alternating: the kept volume answer's read
# against its bytes parsed on each create (issue 34).
#   bench/gate-create-path.sh [rounds=3000] [floor pins=2000]      JFR=1: a recording and its jfr-top summary in the work dir
#   BEFORE=<commit>: the same harness of that commit too (a worktree, test-compiled), REPEAT (3) processes of each side
#   alternating, and the median of each side's judge and request-path µs per body with after/before; the harness
#   itself must be the same at both commits for the ratio to mean anything (it is since 2026-12-07's kept-read one)
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
harness() { # checkout-dir [extra JVM flags...]: the harness of that checkout, once
  local co="$1"; shift
  java "$@" -cp "$co/docker-gate/target/test-classes:$co/docker-gate/target/classes:$(cat "$co/docker-gate/target/test-classpath.txt")" \
    io.rediacc.gpu.gate.policy.CreatePathBench "$work/host" "${ROUNDS_ARG}" "${bodies[@]}"
}
ROUNDS_ARG="${1:-3000}"
if [ -n "${BEFORE:-}" ]; then
  git worktree add -q --detach "$work/before" "$BEFORE"
  trap 'git worktree remove --force "$work/before" 2>/dev/null; rm -rf "$work"' EXIT
  (cd "$work/before" && mvn -B -q -o -pl docker-gate -am test-compile org.apache.maven.plugins:maven-dependency-plugin:3.9.0:build-classpath \
    -DskipTests -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test >/dev/null)
  for i in $(seq 1 "${REPEAT:-3}"); do
    for side in $([ $((i % 2)) = 1 ] && echo "before after" || echo "after before"); do
      co=.; [ "$side" = before ] && co="$work/before"
      echo "== $side ($([ "$side" = before ] && echo "$BEFORE" || git rev-parse --short HEAD)), run $i"
      harness "$co" | tee "$work/$side-$i.txt"
    done
  done
  echo
  # judge: the judging-alone table's kept-read column (steady state, median batch); request path: the first table's
  echo "| body | judge µs before | judge µs after | after/before (runs) | request path µs before | after | after/before |"
  echo "|---|---|---|---|---|---|---|"
  for body in "${bodies[@]}"; do
    b="$(basename "$body")"
    med() { awk -F'|' -v c="$2" '{print $c+0}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    judge() { grep -hE "^\| $b \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$" "$work"/$1-$2.txt; }
    jb="$(judge before '*' | med x 3)"; ja="$(judge after '*' | med x 3)"
    pb="$(grep -h "^| $b | [0-9]* |" "$work"/before-*.txt | med x 7)"; pa="$(grep -h "^| $b | [0-9]* |" "$work"/after-*.txt | med x 7)"
    runs="$(for i in $(seq 1 "${REPEAT:-3}"); do awk -v a="$(judge after "$i" | med x 3)" -v b="$(judge before "$i" | med x 3)" 'BEGIN {printf "%.2f ", a/b}'; done)"
    awk -v b="$b" -v jb="$jb" -v ja="$ja" -v pb="$pb" -v pa="$pa" -v runs="${runs% }" \
      'BEGIN {printf "| %s | %.2f | %.2f | %.3f (%s) | %.1f | %.1f | %.3f |\n", b, jb, ja, ja/jb, runs, pb, pa, pa/pb}'
  done
else
  harness . "${jfr[@]}"
fi
gcc -O2 -o "$work/pin-syscalls" bench/lib/pin-syscalls.c
"$work/pin-syscalls" "$work/host" srv/datasets "$work/pins" "${2:-2000}"
if [ "${JFR:-0}" = 1 ]; then
  bench/lib/jfr-top.sh "$work/create-path.jfr" 25 >"$work/create-path.jfr-top.txt"
  echo "recording: $work/create-path.jfr; summary: $work/create-path.jfr-top.txt"
fi
