#!/usr/bin/env bash
# Bench 4 — fleet scale. A simulator publishes MACHINES (10,000) machines x 8 GPUs to gpu.inventory.v1.
#  a) inventory-service ingest rate (first record sent → last record processed, from its
#     inventory_ingested_records_total), rounds alternating with the anchor: a plain consumer reading
#     the same topic to its end. Target >= 5,000 machines/s.
#  b) GET /api/v1/machines/{m} (random machine) and GET /api/v1/gpus?size=50 p99 at that size
#     (wrk, 4 connections), alternating with the service's /q/health/live as the framework floor.
#     Target p99 < 10 ms.
#  c) a new gate catching up on MACHINES machines' grant snapshots on gpu.grants.v1 (8 grants each):
#     launch → "in sync" and the feed's own read (end offsets known → in sync), alternating with
#     a plain consumer reading the compacted topic to its end in a fresh JVM. Target < 2 s.
# Env: ROUNDS (3), INGEST_ROUNDS (ROUNDS), MACHINES (10000), WARM_MACHINES (500: the warm-up's own machines),
#      DURATION (8s), JFR (1: record the services with JFR),
#      INV_JAVA_OPTS (inventory-service's JVM flags; unset: those its Dockerfile ships, empty: JVM defaults),
#      INV_MALLOC_ARENA_MAX (unset: its Dockerfile's MALLOC_ARENA_MAX, empty: glibc's default),
#      INV_DIAG (1: after the reads, the service's RSS broken down: smaps, heap, NMT when on, a live-heap histogram),
#      READ_BEFORE (a commit: after the ingest, an inventory-service packaged from it joins on the same database and
#      consumer group, with the same JVM flags unless READ_BEFORE_JAVA_OPTS gives its own (READ_BEFORE=HEAD and
#      READ_BEFORE_JAVA_OPTS: two sets of flags on the same code, same rounds), and b)'s reads alternate between the two in every round: the
#      summary adds its p99s and after/before per round), SKIP_GATE (1: leave c) out).
source "$(dirname "$0")/lib/common.sh"
MACHINES="${MACHINES:-10000}"; WARM_MACHINES="${WARM_MACHINES:-500}"; DURATION="${DURATION:-8s}"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
# the service runs with the JVM flags and MALLOC_ARENA_MAX its image ships at BENCH_REF (JVM_FLAGS and
# MALLOC_ARENA_MAX in its Dockerfile, none before it had them); INV_JAVA_OPTS= (empty) runs JVM defaults,
# INV_MALLOC_ARENA_MAX= (empty) glibc's default
INV_DOCKERFILE="$( git -C "$REPO_ROOT" show "${BENCH_REF:-HEAD}:inventory-service/src/main/docker/Dockerfile.jvm" 2>/dev/null || true)"
INV_JAVA_OPTS="${INV_JAVA_OPTS-$(sed -n 's/^ENV JVM_FLAGS="\(.*\)"$/\1/p' <<<"$INV_DOCKERFILE")}"
INV_MALLOC_ARENA_MAX="${INV_MALLOC_ARENA_MAX-$(sed -n 's/^ENV MALLOC_ARENA_MAX=\([0-9]*\)$/\1/p' <<<"$INV_DOCKERFILE")}"
ensure_tools; ensure_drivers; build_service inventory-service; build_service docker-gate
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
start_kafka
DB="$(create_db inventory)"
INV_PORT="$(free_port)"
INV_METRICS_PORT="$(free_port)" # /q/metrics is on the management port (before it existed: on the API port)
# every /api/v1 read needs a viewer's bearer token (api.auth.*, module api-security); wrk sends this one.
# Registering the machines' keys needs an operator's, and far more writes than the rate limit lets one operator do.
BENCH_TOKEN="bench-viewer-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
OPERATOR_TOKEN="bench-operator-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
INV_SIGNING=(); signed_ref && INV_SIGNING=(-Dinventory.signing.service-key="$BENCH_GRANTS_PUB")
INVENTORY_DB_URL="postgresql://$PGHOST:$PGPORT/$DB" INVENTORY_DB_USER="$PGUSER" INVENTORY_DB_PASSWORD="$PGPASSWORD" \
  KAFKA_BOOTSTRAP_SERVERS="$KAFKA" INVENTORY_CONSUMER_GROUP="bench-$RUN_ID" \
  start_bg inventory-service env ${INV_MALLOC_ARENA_MAX:+MALLOC_ARENA_MAX=$INV_MALLOC_ARENA_MAX} java ${INV_JAVA_OPTS:-} $(jfr_opt inventory-service) -Dquarkus.http.port="$INV_PORT" -Dquarkus.management.port="$INV_METRICS_PORT" \
    -Dapi.auth.tokens.bench.token="$BENCH_TOKEN" -Dapi.auth.tokens.bench.roles=viewer \
    -Dapi.auth.tokens.bench-operator.token="$OPERATOR_TOKEN" -Dapi.auth.tokens.bench-operator.roles=operator \
    -Dapi.rate-limit.enabled=false "${INV_SIGNING[@]}" -jar "$INVENTORY_SERVICE_JAR"
INV_PID=$LAST_PID; JFR_PIDS+=("$INV_PID"); INV="http://127.0.0.1:$INV_PORT"
wait_http "$INV/q/health/ready" 180 || { tail -30 "$RUN_DIR/inventory-service.log" >&2; exit 1; }
log "inventory-service at $INV"
INV_METRICS="http://127.0.0.1:$INV_METRICS_PORT/q/metrics"
curl -fsS -o /dev/null "$INV_METRICS" 2>/dev/null || INV_METRICS="$INV/q/metrics"
# the machines' keys, registered as rdc machine setup does, 32 at once, before anything is published and outside
# the measured ingest (its time is logged, and kept in key-registration.txt)
register_keys "$INV" "$OPERATOR_TOKEN" "warm-%05d" 0 "$WARM_MACHINES"
register_keys "$INV" "$OPERATOR_TOKEN" "fm-%05d" 0 "$MACHINES" 32
# warm-up: machines of their own
driver FleetSim inventory "$KAFKA" "warm-%05d" 0 "$WARM_MACHINES" 8 2 --await-metrics "$INV_METRICS" "$WARM_MACHINES" >"$RUN_DIR/warmup.txt"
assert_no_drops inventory-service "$INV_METRICS"

# --- a) ingest ------------------------------------------------------------------------------------
INGEST_ROUNDS="${INGEST_ROUNDS:-$ROUNDS}"
for r in $(seq 1 "$INGEST_ROUNDS"); do
  # round 1 inserts the machines, later rounds replace them (a new driver version: a real change)
  driver FleetSim inventory "$KAFKA" "fm-%05d" 0 "$MACHINES" 8 2 "570.86.$r" --await-metrics "$INV_METRICS" "$MACHINES" >"$RUN_DIR/ingest-$r.txt"
  rate="$(awk '$1=="ingest_rate" {print $2}' "$RUN_DIR/ingest-$r.txt")"
  anchor="$(driver ReadToEnd "$KAFKA" gpu.inventory.v1 0 2>/dev/null | awk '$1=="read_ms" {print $2, $4}')"
  read -r anchor_ms anchor_records <<<"$anchor"
  anchor_rate="$(awk -v n="$anchor_records" -v ms="$anchor_ms" 'BEGIN {printf "%.1f", n/(ms/1000)}')"
  echo "$r $rate $anchor_rate $anchor_records $anchor_ms" >>"$RUN_DIR/ingest-rounds.txt"
  log "ingest round $r: $rate machines/s; plain consumer $anchor_rate records/s ($anchor_records records); load $(load_now)"
done

# --- b) read p99 at that size ------------------------------------------------------------------------
READ_SIDES=(after); declare -A READ_URL=([after]="$INV")
if [ -n "${READ_BEFORE:-}" ]; then
  after_jar="$INVENTORY_SERVICE_JAR"
  BENCH_REF="$READ_BEFORE" build_service inventory-service
  before_jar="$INVENTORY_SERVICE_JAR"; INVENTORY_SERVICE_JAR="$after_jar"
  before_signing=(); BENCH_REF="$READ_BEFORE" signed_ref && before_signing=(-Dinventory.signing.service-key="$BENCH_GRANTS_PUB")
  before_port="$(free_port)"
  # the same database and consumer group: it reads what the ingest wrote and has nothing left to consume
  INVENTORY_DB_URL="postgresql://$PGHOST:$PGPORT/$DB" INVENTORY_DB_USER="$PGUSER" INVENTORY_DB_PASSWORD="$PGPASSWORD" \
    KAFKA_BOOTSTRAP_SERVERS="$KAFKA" INVENTORY_CONSUMER_GROUP="bench-$RUN_ID" \
    start_bg inventory-service-before env ${INV_MALLOC_ARENA_MAX:+MALLOC_ARENA_MAX=$INV_MALLOC_ARENA_MAX} java ${READ_BEFORE_JAVA_OPTS-${INV_JAVA_OPTS:-}} $(jfr_opt inventory-service-before) -Dquarkus.http.port="$before_port" -Dquarkus.management.port="$(free_port)" \
      -Dapi.auth.tokens.bench.token="$BENCH_TOKEN" -Dapi.auth.tokens.bench.roles=viewer \
      -Dapi.rate-limit.enabled=false "${before_signing[@]}" -jar "$before_jar"
  BEFORE_PID=$LAST_PID; JFR_PIDS+=("$BEFORE_PID"); READ_URL[before]="http://127.0.0.1:$before_port"; READ_SIDES+=(before)
  wait_http "${READ_URL[before]}/q/health/ready" 180 || { tail -30 "$RUN_DIR/inventory-service-before.log" >&2; exit 1; }
  log "inventory-service of $READ_BEFORE at ${READ_URL[before]}"
fi
cat >"$RUN_DIR/machine.lua" <<LUA
math.randomseed(os.time())
request = function()
  return wrk.format("GET", string.format("/api/v1/machines/fm-%05d", math.random(0, $MACHINES - 1)), {["Authorization"] = "Bearer $BENCH_TOKEN"})
end
LUA
cat >"$RUN_DIR/gpus.lua" <<LUA
math.randomseed(os.time())
request = function()
  return wrk.format("GET", string.format("/api/v1/gpus?page=%d&size=50", math.random(0, 1500)), {["Authorization"] = "Bearer $BENCH_TOKEN"})
end
LUA
for side in "${READ_SIDES[@]}"; do
  wrk_run "warm-machine-$side" "${READ_URL[$side]}/" 3s 4 "$RUN_DIR/machine.lua" >/dev/null
  wrk_run "warm-gpus-$side" "${READ_URL[$side]}/" 3s 4 "$RUN_DIR/gpus.lua" >/dev/null
done
for r in $(seq 1 "$ROUNDS"); do
  order=("${READ_SIDES[@]}"); [ "${#READ_SIDES[@]}" = 2 ] && [ $((r % 2)) = 0 ] && order=(before after)
  for side in "${order[@]}"; do
    url="${READ_URL[$side]}"; tag="$r"; [ "$side" = after ] || tag="$r-$side"
    read -r m_rps m_p50 m_p99 m_bad < <(wrk_run "$tag-machine" "$url/" "$DURATION" 4 "$RUN_DIR/machine.lua")
    read -r g_rps g_p50 g_p99 g_bad < <(wrk_run "$tag-gpus" "$url/" "$DURATION" 4 "$RUN_DIR/gpus.lua")
    if [ "$side" = after ]; then
      read -r h_rps h_p50 h_p99 h_bad < <(wrk_run "$r-live" "$INV/q/health/live" "$DURATION" 4)
      echo "$r $m_rps $m_p50 $m_p99 $m_bad $g_rps $g_p50 $g_p99 $g_bad $h_rps $h_p50 $h_p99" >>"$RUN_DIR/read-rounds.txt"
    else
      echo "$r $m_rps $m_p50 $m_p99 $m_bad $g_rps $g_p50 $g_p99 $g_bad" >>"$RUN_DIR/read-rounds-before.txt"
    fi
    log "read round $r ($side): machine p99 ${m_p99}ms ($m_rps/s, non-2xx $m_bad), gpus p99 ${g_p99}ms ($g_rps/s, non-2xx $g_bad)$([ "$side" = after ] && echo ", live p99 ${h_p99}ms"); load $(load_now)"
  done
done
INV_RSS="$(rss_mib "$INV_PID")"
# INV_DIAG=1: what the RSS is made of, after it is measured (NMT's summary when INV_JAVA_OPTS turns it on; the live
# heap by class, which runs a full collection first; the kernel's anonymous/file split)
if [ "${INV_DIAG:-0}" = 1 ]; then
  { cat "/proc/$INV_PID/smaps_rollup"; jcmd "$INV_PID" GC.heap_info; jcmd "$INV_PID" VM.native_memory summary; } >"$RUN_DIR/inventory-rss.txt" 2>&1
  jcmd "$INV_PID" GC.class_histogram 2>&1 | head -60 >"$RUN_DIR/inventory-heap-histogram.txt"
  jcmd "$INV_PID" GC.heap_info >>"$RUN_DIR/inventory-rss.txt" 2>&1
  log "inventory-service RSS diagnostics in $RUN_DIR/inventory-rss.txt and inventory-heap-histogram.txt"
fi
if [ -n "${READ_BEFORE:-}" ]; then
  BEFORE_RSS="$(rss_mib "$BEFORE_PID")"
  stop_pid "$BEFORE_PID"
  # after/before of each round: machine p99, gpus p99, machine req/s, gpus req/s
  paste -d' ' "$RUN_DIR/read-rounds.txt" "$RUN_DIR/read-rounds-before.txt" \
    | awk '{printf "%s %.3f %.3f %.3f %.3f\n", $1, $4/$16, $8/$20, $2/$14, $6/$18}' >"$RUN_DIR/read-ratios.txt"
fi
assert_no_drops inventory-service "$INV_METRICS"
stop_pid "$INV_PID"

# --- c) a new gate catching up on the grants topic --------------------------------------------
: >>"$RUN_DIR/gate-rounds.txt"
[ "${SKIP_GATE:-0}" = 1 ] || {
driver FleetSim grants "$KAFKA" "fm-%05d" 0 "$MACHINES" 8 >&2
NGX_PORT=1  # the gate never connects to a daemon here
GATE_MACHINE="$(printf 'fm-%05d' $(( MACHINES / 2 )))"
for r in $(seq 1 "$ROUNDS"); do
  d="$RUN_DIR/gate-$r"; mkdir -p "$d"
  cat >"$d/repos.yaml" <<YAML
machine: $GATE_MACHINE
repos:
  - name: repo-0
    guid: $(driver FleetSim guid "$GATE_MACHINE" repo-0)
    listen: tcp://127.0.0.1:0
    daemon: tcp://127.0.0.1:$(free_port)
YAML
  t_launch="$(date +%s%3N)"
  start_gate "gate-$r" "$d/repos.yaml" "$d/state" '-Dquarkus.log.category."io.rediacc.gpu.gate.grants".level=DEBUG'
  deadline=$(( $(date +%s) + 180 ))
  until grep -q "are in sync" "$RUN_DIR/gate-$r.log"; do
    [ "$(date +%s)" -lt "$deadline" ] || { log "FAILED: gate $r not in sync after 180 s"; tail -20 "$RUN_DIR/gate-$r.log" >&2; exit 1; }
    sleep 0.05
  done
  assert_no_drops "gate $r" "$GATE_METRICS"
  stop_pid "$GATE_PID"
  ts() { grep -m1 "$1" "$RUN_DIR/gate-$r.log" | awk '{print $1" "$2}' | sed 's/,/./' | xargs -I{} date -d "{}" +%s%3N; }
  t_sync="$(ts 'are in sync')"; t_end="$(ts 'to end offsets')"; t_started="$(ts 'started in')"; t_serves="$(ts ' serves ')"
  cold="$(driver ReadToEnd "$KAFKA" gpu.grants.v1 0 2>/dev/null | awk '$1=="read_ms" {print $2, $4}')"
  # cold read in a fresh JVM: time to build the consumer and read to the end offsets (JVM start not included)
  read -r cold_ms cold_records <<<"$cold"
  echo "$r $((t_sync - t_launch)) $((t_sync - t_end)) $((t_started - t_launch)) $cold_ms $cold_records $((t_sync - t_serves))" >>"$RUN_DIR/gate-rounds.txt"
  log "gate round $r: launch→in-sync $((t_sync - t_launch)) ms, feed read $((t_sync - t_end)) ms, launch→started $((t_started - t_launch)) ms; plain consumer $cold_ms ms ($cold_records records); load $(load_now)"
done
}

col() { awk -v c="$2" '{print $c}' "$RUN_DIR/$1" | median; }
{
  echo "## fleet scale  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); $MACHINES machines x 8 GPUs, $ROUNDS rounds)"
  printf '| figure | median | anchor (same run) | target |\n|---|---|---|---|\n'
  printf '| inventory ingest, machines/s | %s | plain consumer reading gpu.inventory.v1: %s records/s | >= 5,000 |\n' "$(col ingest-rounds.txt 2)" "$(col ingest-rounds.txt 3)"
  printf '| GET /api/v1/machines/{m} p99 ms (p50) | %s (%s) | /q/health/live p99 %s ms | < 10 |\n' "$(col read-rounds.txt 4)" "$(col read-rounds.txt 3)" "$(col read-rounds.txt 12)"
  printf '| GET /api/v1/gpus?size=50 p99 ms (p50) | %s (%s) | | < 10 |\n' "$(col read-rounds.txt 8)" "$(col read-rounds.txt 7)"
  printf '| gate catch-up: launch → in sync, ms | %s | JVM+Quarkus boot (launch → started) %s ms | < 2,000 |\n' "$(col gate-rounds.txt 2)" "$(col gate-rounds.txt 4)"
  printf '| gate catch-up: feed started (gate start logged) → in sync, ms | %s | plain consumer, fresh JVM, consumer creation → end of gpu.grants.v1: %s ms | < 2,000 |\n' "$(col gate-rounds.txt 7)" "$(col gate-rounds.txt 5)"
  printf '| gate catch-up: feed read (end offsets → in sync), ms | %s | plain consumer, fresh JVM, reading gpu.grants.v1 to its end: %s ms | < 2,000 |\n' "$(col gate-rounds.txt 3)" "$(col gate-rounds.txt 5)"
  echo
  echo "inventory-service RSS after the reads: $INV_RSS MiB (JVM flags: '${INV_JAVA_OPTS:-defaults}', MALLOC_ARENA_MAX: ${INV_MALLOC_ARENA_MAX:-default})"
  if [ -n "${READ_BEFORE:-}" ]; then
    echo
    printf '| reads, %s (after) vs %s (before), same rounds | after | before | after/before, median of the rounds |\n|---|---|---|---|\n' \
      "$(git -C "$REPO_ROOT" rev-parse --short=12 "$BENCH_REF")" "$READ_BEFORE"
    printf '| GET /api/v1/machines/{m} p99 ms | %s | %s | %s |\n' "$(col read-rounds.txt 4)" "$(col read-rounds-before.txt 4)" "$(col read-ratios.txt 2)"
    printf '| GET /api/v1/gpus?size=50 p99 ms | %s | %s | %s |\n' "$(col read-rounds.txt 8)" "$(col read-rounds-before.txt 8)" "$(col read-ratios.txt 3)"
    printf '| GET /api/v1/machines/{m} req/s | %s | %s | %s |\n' "$(col read-rounds.txt 2)" "$(col read-rounds-before.txt 2)" "$(col read-ratios.txt 4)"
    printf '| GET /api/v1/gpus?size=50 req/s | %s | %s | %s |\n' "$(col read-rounds.txt 6)" "$(col read-rounds-before.txt 6)" "$(col read-ratios.txt 5)"
    echo "before's RSS after the reads: $BEFORE_RSS MiB; read-ratios (round machine_p99 gpus_p99 machine_rps gpus_rps, after/before)"
  fi
  echo "per-round data: ingest (round rate anchor_rate anchor_records anchor_ms), read (round m_rps m_p50 m_p99 bad g_rps g_p50 g_p99 bad live_rps live_p50 live_p99), gate (round launch_sync feed_read launch_started cold_ms records serves_sync)"
  for f in ingest-rounds read-rounds ${READ_BEFORE:+read-rounds-before read-ratios} gate-rounds; do echo "$f:"; sed 's/^/    /' "$RUN_DIR/$f.txt"; done
} | tee "$RUN_DIR/summary.md"
# issue 21's figures, machine-readable (bench/run-all.sh collects them)
figure "inventory ingest, $MACHINES machines × 8 GPUs, machines/s" "$(col ingest-rounds.txt 2)" \
  "plain consumer reading gpu.inventory.v1: $(col ingest-rounds.txt 3) records/s" \
  "$(awk '$3 > 0 {printf "%.3f\n", $2/$3}' "$RUN_DIR/ingest-rounds.txt" | median)" "value>=5000"
figure "GET /api/v1/machines/{m} p99 at $MACHINES machines, ms" "$(col read-rounds.txt 4)" \
  "/q/health/live p99 $(col read-rounds.txt 12) ms" "$(awk '$12 > 0 {printf "%.2f\n", $4/$12}' "$RUN_DIR/read-rounds.txt" | median)" "value<10"
figure "GET /api/v1/gpus?size=50 p99 at $MACHINES machines, ms" "$(col read-rounds.txt 8)" \
  "/q/health/live p99 $(col read-rounds.txt 12) ms" "$(awk '$12 > 0 {printf "%.2f\n", $8/$12}' "$RUN_DIR/read-rounds.txt" | median)" "value<10"
figure "inventory-service RSS after the fleet-scale reads, MiB" "$INV_RSS" - - "value<=256"
