#!/usr/bin/env bash
# Bench 5 — what the gate adds to a real container's life: `docker run --rm` and `docker create` of the
# fleet's ubuntu:24.04 image with a granted CDI device (nvidia.com/gpu=0), through repo gpu-a's gate
# vs directly to the same real dockerd behind it. Runs alternate (gate, direct, gate, ...), so load
# drifts hit both alike; p50/p99 of the wall time of each docker CLI call (the CLI's own start included).
# Needs the local fleet with real daemons: starts `./fleet up -d` when none runs (and stops it after).
# Env: RUNS (60 per path and command).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-60}"
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
  else
    id=$(DOCKER_HOST=$host docker create --device nvidia.com/gpu=0 ubuntu:24.04 true 2>/dev/null)
    ms "$t" >> "$work/$path-$cmd"
    DOCKER_HOST=$FLEET_DAEMON_GPU_A docker rm "$id" > /dev/null
  fi
}
for cmd in run create; do
  one gate "$cmd"; one direct "$cmd"   # warm-up, not counted
  : > "$work/gate-$cmd"; : > "$work/direct-$cmd"
  for _ in $(seq 1 "$RUNS"); do one gate "$cmd"; one direct "$cmd"; done
done
pct() { sort -n "$1" | awk -v p="$2" '{v[NR]=$1} END {i=int(NR*p/100+0.999); if (i<1) i=1; print v[i]}'; }
echo "docker-run-through-gate: $RUNS runs per path, alternating; $(docker version --format 'CLI {{.Client.Version}}' 2>/dev/null), $(DOCKER_HOST=$FLEET_DAEMON_GPU_A docker version --format 'dockerd {{.Server.Version}}'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %8s %8s %8s %8s\n' command "p50 ms" "p99 ms" "min ms" "max ms"
for cmd in run create; do
  for path in gate direct; do
    f="$work/$path-$cmd"
    label="docker $cmd ($path)"; [[ $cmd == run ]] && label="docker run --rm ($path)"
    printf '%-28s %8s %8s %8s %8s\n' "$label" "$(pct "$f" 50)" "$(pct "$f" 99)" "$(sort -n "$f" | head -1)" "$(sort -n "$f" | tail -1)"
  done
done
