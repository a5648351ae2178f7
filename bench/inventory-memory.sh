#!/usr/bin/env bash
# Bench — inventory-service's memory floor (issue 34's RSS row: ≤ 256 MiB at 10,000 machines). Under the flags and
# MALLOC_ARENA_MAX its image ships (Dockerfile.jvm at BENCH_REF), rounds alternating (REPEAT, default 2):
#   floor     bench/floor/InventoryFloorApp.java packaged with inventory-service's pom WITHOUT Hibernate Reactive
#             (quarkus-hibernate-reactive-panache left out) and none of its code: Quarkus, RESTEasy Reactive,
#             Jackson, Qute, Flyway (its JDBC pool and Narayana), the reactive PostgreSQL client, the Kafka client,
#             SmallRye OpenAPI/Health, Micrometer, the scheduler, contracts (Bouncy Castle) and api-security; one
#             consumer reading the service's five topics from the start, one query on the reactive pool.
#   service   the packaged inventory-service itself, on an empty database (its six consumers, its code).
#   before    with SERVICE_BEFORE=<commit>: the service packaged from that commit, in the same rounds.
# Each: RSS idle once started (and the consumers caught up), RSS at the end of DURATION (8s) of wrk on its
# /q/health/live, the kernel's anonymous/file split, classes loaded, threads; NMT=summary adds NMT's breakdown
# (nmt.txt per case; NMT costs ~10 MiB of its own). What the floor takes, the service cannot take less; the
# service at 10,000 machines adds its live data and a heap grown to -Xmx (bench/fleet-scale.sh INV_DIAG=1).
source "$(dirname "$0")/lib/common.sh"
REPEAT="${REPEAT:-2}"; DURATION="${DURATION:-8s}"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
INV_DOCKERFILE="$(git -C "$REPO_ROOT" show "$BENCH_REF:inventory-service/src/main/docker/Dockerfile.jvm")"
INV_JAVA_OPTS="$(sed -n 's/^ENV JVM_FLAGS="\(.*\)"$/\1/p' <<<"$INV_DOCKERFILE")"
INV_MALLOC_ARENA_MAX="$(sed -n 's/^ENV MALLOC_ARENA_MAX=\([0-9]*\)$/\1/p' <<<"$INV_DOCKERFILE")"
ensure_tools; ensure_drivers
CASES=(floor service)
if [ -n "${SERVICE_BEFORE:-}" ]; then
  AFTER_REF="$BENCH_REF"; BENCH_REF="$SERVICE_BEFORE" build_service inventory-service; BEFORE_JAR="$INVENTORY_SERVICE_JAR"
  BENCH_REF="$AFTER_REF"; CASES+=(before)
fi
build_service inventory-service
declare -A JAR=([service]="$INVENTORY_SERVICE_JAR" [before]="${BEFORE_JAR:-}")
build_floor inventory-service "$REPO_ROOT/bench/floor/InventoryFloorApp.java" quarkus-hibernate-reactive-panache
JAR[floor]="$FLOOR_JAR"
log "run dir $RUN_DIR; $(machine_line); load $(load_now); flags '$INV_JAVA_OPTS', MALLOC_ARENA_MAX ${INV_MALLOC_ARENA_MAX:-default}"
start_kafka
TOKEN="bench-viewer-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"

# measure label n jar : one case, its own database
measure() {
  local label="$1" n="$2" jar="$3" dir="$RUN_DIR/$1-$2" port db
  mkdir -p "$dir"; port="$(free_port)"; db="$(create_db "floor")"
  # shellcheck disable=SC2086
  INVENTORY_DB_URL="postgresql://$PGHOST:$PGPORT/$db" INVENTORY_DB_USER="$PGUSER" INVENTORY_DB_PASSWORD="$PGPASSWORD" \
    KAFKA_BOOTSTRAP_SERVERS="$KAFKA" INVENTORY_CONSUMER_GROUP="bench-$RUN_ID-$label-$n" \
    start_bg "$label-$n" env ${INV_MALLOC_ARENA_MAX:+MALLOC_ARENA_MAX=$INV_MALLOC_ARENA_MAX} java $INV_JAVA_OPTS \
      -XX:NativeMemoryTracking="${NMT:-off}" -Dquarkus.http.port="$port" -Dquarkus.management.port="$(free_port)" \
      -Dkafka.bootstrap.servers="$KAFKA" -Dfloor.kafka=true \
      -Dapi.auth.tokens.bench.token="$TOKEN" -Dapi.auth.tokens.bench.roles=viewer -Dapi.rate-limit.enabled=false -jar "$jar"
  local pid=$LAST_PID
  wait_http "http://127.0.0.1:$port/q/health/live" 180 || { tail -30 "$RUN_DIR/$label-$n.log" >&2; exit 1; }
  sleep 10 # the consumers joined their groups and read the topics (empty but for the broker's start) to their end
  local idle; idle="$(rss_mib "$pid")"
  wrk -t2 -c4 -d"$DURATION" "http://127.0.0.1:$port/q/health/live" >"$dir/wrk.txt" 2>&1 || true
  local loaded; loaded="$(rss_mib "$pid")"
  local kinds; kinds="$(grep -E 'Rss(Anon|File)' "/proc/$pid/status" | awk '{printf "%s%.1f ", $1, $2/1024}')"
  [ "${NMT:-off}" = off ] || jcmd "$pid" VM.native_memory summary >"$dir/nmt.txt" 2>&1 || true
  local threads; threads="$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")"
  local classes; classes="$(jcmd "$pid" PerfCounter.print 2>/dev/null | awk -F= '/java.cls.loadedClasses=/ {l=$2} /java.cls.unloadedClasses=/ {u=$2} END {print l-u}')"
  local rps; rps="$(awk '/Requests\/sec/ {print $2}' "$dir/wrk.txt")"
  echo "$label $n idle=$idle loaded=$loaded [${kinds% }] classes=$classes threads=$threads live_rps=$rps nmt=${NMT:-off}" | tee -a "$RESULTS" >&2
  stop_pid "$pid"
}
for n in $(seq 1 "$REPEAT"); do
  order=("${CASES[@]}"); [ $((n % 2)) = 1 ] || mapfile -t order < <(printf '%s\n' "${CASES[@]}" | tac)
  for c in "${order[@]}"; do measure "$c" "$n" "${JAR[$c]}"; done
done
field() { grep "^$1 " "$RESULTS" | sed -n "s/.* $2=\([0-9.]*\).*/\1/p" | median; }
{
  echo "## inventory-service memory floor  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); $REPEAT rounds; ref $(git -C "$REPO_ROOT" rev-parse --short=12 "$BENCH_REF"))"
  echo "flags: $INV_JAVA_OPTS; MALLOC_ARENA_MAX ${INV_MALLOC_ARENA_MAX:-default}; NMT ${NMT:-off}${SERVICE_BEFORE:+; before: $SERVICE_BEFORE}"
  printf '| case | RSS idle MiB | RSS after %s of /q/health/live MiB | classes |\n|---|---|---|---|\n' "$DURATION"
  for c in "${CASES[@]}"; do
    printf '| %s | %s | %s | %.0f |\n' "$c" "$(field "$c" idle)" "$(field "$c" loaded)" "$(field "$c" classes)"
  done
  echo "per case:"; sed 's/^/    /' "$RESULTS"
} | tee "$RUN_DIR/summary.md"
