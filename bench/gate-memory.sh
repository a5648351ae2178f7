#!/usr/bin/env bash
# The gate's memory at size, without the throughput rounds: 1,000 repos (TCP listeners, daemon = nginx) and
# BIG_GRANTS (1,000) grants applied from a signed snapshot on gpu.grants.v1, as bench/gate-dataplane.sh's
# big_gate, for each set of JVM flags given; per case: RSS idle (5 s after the snapshot is in sync) and the
# maximum under 8 s of wrk /_ping on one repo, NMT summary, classes loaded, live heap after a full GC, threads (all,
# and the pin watcher's: named gate-pin*, without gate-pins-io). A gate that does not come up with 1,000 repos is
# reported "failed" (with "out of memory" when its log says so).
# Every case runs with the Environment= lines of deploy/systemd/docker-gate.service at the gate's commit
# (MALLOC_ARENA_MAX, JDK_JAVA_OPTIONS); a case's flags come after them on the command line, so they override the unit's.
# Usage: bench/gate-memory.sh 'label=flags' ...   e.g. bench/gate-memory.sh unit= 'x24=-Xmx24m'
# A label may hold capitals (the simulated machine's name is its lower-case form).
# Env: BIG_GRANTS (1000), DURATION (8s), CONNS (32), REPEAT (1: each case this many times, alternating),
#      GATE_BEFORE (a commit: each case also for the gate packaged from it, as "<label>-before", measured just
#      before BENCH_REF's in the same run, with that commit's unit flags),
#      FLOOR (1: after each round of cases, the floor of the gate's stack under the unit's flags, NMT off:
#      bench/floor/FloorApp.java packaged with docker-gate's pom at BENCH_REF and none of the gate's code, idle
#      ("floor-bare") and with a Kafka consumer on gpu.grants.v1 and a connected producer, as the gate has
#      ("floor-kafka"); RSS idle and under 8 s of wrk on its /q/health/live, classes, threads; FLOOR_NMT=summary
#      for NMT's breakdown, which costs ~4 MiB of RSS itself).
source "$(dirname "$0")/lib/common.sh"
DURATION="${DURATION:-8s}"; CONNS="${CONNS:-32}"; BIG_GRANTS="${BIG_GRANTS:-1000}"; REPEAT="${REPEAT:-1}"
unit_env() { # unit_env ref : the unit's Environment= assignments at that commit, one a line
  git -C "$REPO_ROOT" show "$1:deploy/systemd/docker-gate.service" \
    | sed -n 's/^Environment="\{0,1\}\([A-Za-z_]*=[^"]*\)"\{0,1\}$/\1/p'
}
ensure_tools; ensure_drivers
if [ -n "${GATE_BEFORE:-}" ]; then
  AFTER_REF="$BENCH_REF"; BENCH_REF="$GATE_BEFORE"; build_service docker-gate; BEFORE_JAR="$DOCKER_GATE_JAR"; BENCH_REF="$AFTER_REF"
fi
build_service docker-gate; AFTER_JAR="$DOCKER_GATE_JAR"
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
start_nginx_daemon
start_kafka
[ "$#" -gt 0 ] || set -- unit=
measure() { # measure label n jar ref flags...
  local label="$1" n="$2" jar="$3" ref="$4"; shift 4
  # the simulated machine's name: a machine name's rules (lower-case letters, digits, . _ -)
  local dir="$RUN_DIR/$label-$n" m; m="gate-mem-$(echo "$label" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9._\n-' '-')-$n"; mkdir -p "$dir/state"
  python3 - "$dir" "$NGX_PORT" "$m" <<'PY'
import hashlib, sys, uuid
d, ngx, m = sys.argv[1], sys.argv[2], sys.argv[3]
def guid(repo):
    return str(uuid.UUID(bytes=hashlib.md5(("repo:%s/%s" % (m, repo)).encode()).digest(), version=3))
repos = ["  - name: repo-%d\n    guid: %s\n    listen: tcp://127.0.0.1:0\n    daemon: tcp://127.0.0.1:%s\n" % (r, guid("repo-%d" % r), ngx)
         for r in range(1000)]
open(d + "/repos.yaml", "w").write("machine: %s\nrepos:\n%s" % (m, "".join(repos)))
PY
  driver FleetSim grants "$KAFKA" "$m" 0 1 "$BIG_GRANTS" >&2
  local unit kv; mapfile -t unit < <(unit_env "$ref")
  for kv in "${unit[@]}"; do export "${kv?}"; done
  # shellcheck disable=SC2068
  DOCKER_GATE_JAR="$jar" start_gate "$label-$n" "$dir/repos.yaml" "$dir/state" -XX:NativeMemoryTracking=summary $@
  for kv in "${unit[@]}"; do unset "${kv%%=*}"; done
  local pid=$GATE_PID i ok=0
  for i in $(seq 1 900); do
    grep -q "grants of $m are in sync at version [1-9]" "$RUN_DIR/$label-$n.log" \
      && grep -q "serves 1000 repo" "$RUN_DIR/$label-$n.log" && { ok=1; break; }
    kill -0 "$pid" 2>/dev/null || break; sleep 0.2
  done
  if [ "$ok" != 1 ] || ! grep -q "serves 1000 repo" "$RUN_DIR/$label-$n.log" || grep -q TAMPERING "$RUN_DIR/$label-$n.log"; then
    local why=""; grep -q OutOfMemoryError "$RUN_DIR/$label-$n.log" && why=" (out of memory)"
    kill -0 "$pid" 2>/dev/null || why="$why, exited"
    log "$label: the gate did not serve 1000 repos with the snapshot applied$why: $RUN_DIR/$label-$n.log"
    echo "$label $n failed$why ${ref}" >>"$RUN_DIR/results.txt"; stop_pid "$pid"; return 0
  fi
  sleep 5
  local idle; idle="$(rss_mib "$pid")"
  local threads pin_threads; threads="$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")"
  pin_threads="$(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep '^gate-pin' | grep -vc '^gate-pins-io' || true)"
  local port; port="$(ss -ltnpH 2>/dev/null | awk -v p="pid=$pid," '$0 ~ p {split($4,a,":"); print a[length(a)]}' | grep -v "^$GATE_MGMT\$" | head -1 || true)"
  ( while kill -0 "$pid" 2>/dev/null; do rss_mib "$pid"; sleep 0.5; done >"$dir/rss.txt" ) & local s=$!
  wrk -t2 -c"$CONNS" -d"$DURATION" --latency "http://127.0.0.1:$port/_ping" >"$dir/wrk.txt" 2>&1 || true
  kill "$s" 2>/dev/null || true; wait "$s" 2>/dev/null || true
  local loaded; loaded="$(sort -g "$dir/rss.txt" | tail -1)"
  grep -E 'Rss(Anon|File|Shmem)' "/proc/$pid/status" >"$dir/rss-kinds.txt"
  awk '$6 ~ /\.so/ {print $6}' "/proc/$pid/maps" | sort -u >"$dir/libs.txt"
  jcmd "$pid" VM.native_memory summary >"$dir/nmt.txt" 2>&1 || true
  jcmd "$pid" GC.class_histogram >"$dir/histo.txt" 2>&1 || true   # a full GC first: the live set
  jcmd "$pid" VM.classloader_stats >"$dir/loaders.txt" 2>&1 || true
  local classes; classes="$(jcmd "$pid" PerfCounter.print 2>/dev/null | awk -F= '/java.cls.loadedClasses=/ {l=$2} /java.cls.unloadedClasses=/ {u=$2} /java.cls.sharedLoadedClasses=/ {s=$2} END {print l-u "(" s " shared)"}')"
  local live; live="$(awk '/^Total/ {printf "%.1f", $3/1048576}' "$dir/histo.txt")"
  local rps; rps="$(awk '/Requests\/sec/ {print $2}' "$dir/wrk.txt")"
  local committed; committed="$(awk '/^Total:/ {print $0}' "$dir/nmt.txt" | head -1)"
  local kinds; kinds="$(awk '{printf "%s%.1f ", $1, $2/1024}' "$dir/rss-kinds.txt")"
  echo "$label $n idle=$idle loaded=$loaded [$kinds] threads=$threads pin_watch_threads=$pin_threads live_heap_MB=$live classes=$classes ping_rps=$rps nmt[$committed] ref=$ref flags[$*]" | tee -a "$RUN_DIR/results.txt" >&2
  stop_pid "$pid"
}
# measure_floor label n kafka(true|false): the floor app under the unit's environment at BENCH_REF (NMT off unless FLOOR_NMT)
measure_floor() {
  local label="$1" n="$2" kafka="$3" dir="$RUN_DIR/$1-$2" unit kv port
  mkdir -p "$dir"; port="$(free_port)"
  mapfile -t unit < <(unit_env "$BENCH_REF")
  for kv in "${unit[@]}"; do export "${kv?}"; done
  start_bg "$label-$n" java -XX:NativeMemoryTracking="${FLOOR_NMT:-off}" -Dquarkus.http.port="$port" -Dkafka.bootstrap.servers="$KAFKA" \
    -Dfloor.kafka="$kafka" -jar "$FLOOR_JAR"
  for kv in "${unit[@]}"; do unset "${kv%%=*}"; done
  local pid=$LAST_PID i
  for i in $(seq 1 300); do
    curl -fsS "http://127.0.0.1:$port/q/health/live" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break; sleep 0.2
  done
  [ "$kafka" != true ] || sleep 5 # the consumer joined its group and read the topic to its end
  sleep 5
  local idle; idle="$(rss_mib "$pid")"
  ( while kill -0 "$pid" 2>/dev/null; do rss_mib "$pid"; sleep 0.5; done >"$dir/rss.txt" ) & local s=$!
  wrk -t2 -c"$CONNS" -d"$DURATION" "http://127.0.0.1:$port/q/health/live" >"$dir/wrk.txt" 2>&1 || true
  kill "$s" 2>/dev/null || true; wait "$s" 2>/dev/null || true
  local loaded; loaded="$(sort -g "$dir/rss.txt" | tail -1)"
  grep -E 'Rss(Anon|File|Shmem)' "/proc/$pid/status" >"$dir/rss-kinds.txt"
  jcmd "$pid" VM.native_memory summary >"$dir/nmt.txt" 2>&1 || true
  local threads; threads="$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")"
  local classes; classes="$(jcmd "$pid" PerfCounter.print 2>/dev/null | awk -F= '/java.cls.loadedClasses=/ {l=$2} /java.cls.unloadedClasses=/ {u=$2} END {print l-u}')"
  local kinds; kinds="$(awk '{printf "%s%.1f ", $1, $2/1024}' "$dir/rss-kinds.txt")"
  echo "$label $n idle=$idle loaded=$loaded [$kinds] threads=$threads classes=$classes kafka=$kafka ref=$BENCH_REF nmt=${FLOOR_NMT:-off}" \
    | tee -a "$RUN_DIR/results.txt" >&2
  stop_pid "$pid"
}
[ "${FLOOR:-0}" != 1 ] || build_floor docker-gate "$REPO_ROOT/bench/floor/FloorApp.java"
for n in $(seq 1 "$REPEAT"); do
  if [ "${FLOOR:-0}" = 1 ]; then
    measure_floor floor-bare "$n" false
    measure_floor floor-kafka "$n" true
  fi
  for c in "$@"; do
    # shellcheck disable=SC2086
    [ -n "${GATE_BEFORE:-}" ] && measure "${c%%=*}-before" "$n" "$BEFORE_JAR" "$GATE_BEFORE" ${c#*=}
    # shellcheck disable=SC2086
    measure "${c%%=*}" "$n" "$AFTER_JAR" "$BENCH_REF" ${c#*=}
  done
done
log "results: $RUN_DIR/results.txt (load $(load_now))"
