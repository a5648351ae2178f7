#!/usr/bin/env bash
# Bench 5 — what the gate adds to a real container's life: `docker run --rm` and `docker create` of the
# fleet's ubuntu:24.04 image with a granted CDI device (nvidia.com/gpu=0), and `docker compose up -d` of
# 10 services that each ask for it (the compose plugin's CDI request), through repo gpu-a's gate vs
# directly to the same real dockerd behind it. Runs alternate (gate, direct, gate, ...), so load drifts
# hit both alike; p50/p99 of the wall time of each docker CLI call (the CLI's own start included); the
# containers and the project are removed straight at the daemon after each, untimed.
# Then the operator's side: `rdc repo gpu grant --wait 10s` and `rdc repo gpu revoke --wait 10s` of
# nvidia.com/gpu=1 for repo gpu-a-fork (call → the machine's gate enforces it → rdc's answer), alternating
# with `rdc --version` (the CLI's own start, its floor).
# Needs the local fleet with real daemons: starts `./fleet up -d` when none runs (and stops it after).
# Env: RUNS (60 per path and command), COMPOSE_RUNS (10), RDC_RUNS (20).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-60}"; COMPOSE_RUNS="${COMPOSE_RUNS:-10}"; RDC_RUNS="${RDC_RUNS:-20}"
started=""
if [[ ! -f .fleet/ready ]] || ! kill -0 "$(cat .fleet/ready)" 2>/dev/null; then
  ./fleet up -d > /dev/null
  started=1
fi
trap '[[ -n $started ]] && ./fleet down > /dev/null' EXIT
# shellcheck disable=SC1091
source .fleet/fleet.env
if [[ "${FLEET_DAEMONS:-}" != real ]]; then
  echo "bench: the fleet runs stand-in daemons (see .fleet/fleet.log); this bench needs real dockerd" >&2
  exit 1
fi
"$RDC" repo gpu grant "gpu-a@$FLEET_MACHINE" --device nvidia.com/gpu=0 > /dev/null
work=$(mktemp -d); trap 'rm -rf "$work"; [[ -n $started ]] && ./fleet down > /dev/null' EXIT
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
one() {   # one PATH CMD: time one docker call through PATH (gate|direct), append ms to $work/PATH-CMD
  local path=$1 cmd=$2 host t id
  if [[ $path == gate ]]; then host=$DOCKER_HOST_GPU_A; else host=$FLEET_DAEMON_GPU_A; fi
  t=$(date +%s%N)
  if [[ $cmd == run ]]; then
    DOCKER_HOST=$host docker run --rm --device nvidia.com/gpu=0 ubuntu:24.04 true 2>/dev/null
    ms "$t" >> "$work/$path-$cmd"
  elif [[ $cmd == compose ]]; then
    DOCKER_HOST=$host docker compose -p "bench-$path" -f "$work/compose.yaml" up -d >/dev/null 2>"$work/compose.err" \
      || { cat "$work/compose.err" >&2; exit 1; }
    ms "$t" >> "$work/$path-$cmd"
    DOCKER_HOST=$FLEET_DAEMON_GPU_A docker compose -p "bench-$path" -f "$work/compose.yaml" down -t 0 >/dev/null 2>&1
  else
    id=$(DOCKER_HOST=$host docker create --device nvidia.com/gpu=0 ubuntu:24.04 true 2>/dev/null)
    ms "$t" >> "$work/$path-$cmd"
    DOCKER_HOST=$FLEET_DAEMON_GPU_A docker rm "$id" > /dev/null
  fi
}
{ echo "services:"; for i in $(seq 1 10); do
    printf '  s%d:\n    image: ubuntu:24.04\n    command: ["sleep", "600"]\n    devices: ["nvidia.com/gpu=0"]\n' "$i"; done
} > "$work/compose.yaml"
for cmd in run create compose; do
  one gate "$cmd"; one direct "$cmd"   # warm-up, not counted
  : > "$work/gate-$cmd"; : > "$work/direct-$cmd"
  n=$RUNS; [[ $cmd == compose ]] && n=$COMPOSE_RUNS
  for _ in $(seq 1 "$n"); do one gate "$cmd"; one direct "$cmd"; done
done
# the operator's side: grant → enforced → rdc's answer, and back
rdc_one() {   # rdc_one grant|revoke|version
  local t; t=$(date +%s%N)
  case $1 in
    grant) "$RDC" repo gpu grant "gpu-a-fork@$FLEET_MACHINE" --device nvidia.com/gpu=1 --wait 10s > /dev/null ;;
    revoke) "$RDC" repo gpu revoke "gpu-a-fork@$FLEET_MACHINE" --device nvidia.com/gpu=1 --wait 10s > /dev/null ;;
    version) "$RDC" --version > /dev/null ;;
  esac
  ms "$t" >> "$work/rdc-$1"
}
rdc_one version; rdc_one grant; rdc_one revoke   # warm-up, not counted
: > "$work/rdc-version"; : > "$work/rdc-grant"; : > "$work/rdc-revoke"
for _ in $(seq 1 "$RDC_RUNS"); do rdc_one version; rdc_one grant; rdc_one revoke; done
pct() { sort -n "$1" | awk -v p="$2" '{v[NR]=$1} END {i=int(NR*p/100+0.999); if (i<1) i=1; print v[i]}'; }
echo "docker-run-through-gate: $RUNS runs per path ($COMPOSE_RUNS of compose, $RDC_RUNS of rdc), alternating; $(docker version --format 'CLI {{.Client.Version}}' 2>/dev/null), $(DOCKER_HOST=$FLEET_DAEMON_GPU_A docker version --format 'dockerd {{.Server.Version}}'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %8s %8s %8s %8s\n' command "p50 ms" "p99 ms" "min ms" "max ms"
row() { printf '%-40s %8s %8s %8s %8s\n' "$1" "$(pct "$2" 50)" "$(pct "$2" 99)" "$(sort -n "$2" | head -1)" "$(sort -n "$2" | tail -1)"; }
for cmd in run create compose; do
  for path in gate direct; do
    label="docker $cmd ($path)"; [[ $cmd == run ]] && label="docker run --rm ($path)"
    [[ $cmd == compose ]] && label="docker compose up -d, 10 services ($path)"
    row "$label" "$work/$path-$cmd"
  done
done
row "rdc repo gpu grant --wait 10s" "$work/rdc-grant"
row "rdc repo gpu revoke --wait 10s" "$work/rdc-revoke"
row "rdc --version (its start alone)" "$work/rdc-version"
