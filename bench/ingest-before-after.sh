#!/usr/bin/env bash
# Bench — inventory ingest of two commits in the same run, rounds alternating, with the plain-consumer anchor
# (issue 31's "no throughput lost", issue 34's before/after). fleet-scale.sh's part a), twice:
#   each side (BEFORE, AFTER) is an inventory-service packaged from its commit (build_service, git archive) with
#   the JVM flags and MALLOC_ARENA_MAX its Dockerfile ships at that commit, on its own database and its own
#   broker (the topic's name is fixed by contracts, and two services reading one topic would ingest every
#   round together), with the machines' keys registered and a warm-up of its own. Both run for the whole
#   bench; the side not measured sits idle.
#   A round: FleetSim publishes MACHINES machines x 8 GPUs (signed, a new driver version each round, so every
#   record is a real change) to one side's broker and times first record sent → its
#   inventory_ingested_records_total grown by MACHINES; then the other side; then the anchor, a plain consumer
#   (fresh JVM) reading the AFTER broker's gpu.inventory.v1 to its end. The sides' order flips every round.
#   Per round and side also: the service's CPU and PostgreSQL's (all its processes) per record, from
#   /proc/<pid>/stat over the ingest — what a loaded machine's scheduling waits inflate less than the rate.
# Env: BEFORE (default: the first-parent commit of main before the oldest commit mentioning #31), AFTER (HEAD),
#      BEFORE_OPTS, AFTER_OPTS (extra JVM flags of that side, after its image's: e.g. BEFORE=HEAD AFTER=HEAD
#      AFTER_OPTS='-Dmp.messaging.incoming."gpu.inventory.v1".concurrency=4' compares a setting on one commit),
#      ROUNDS (3), MACHINES (10000), WARM_MACHINES (500), JFR (1: a JFR recording of each service over the measured
#      rounds only, started after the warm-up: inventory-<side>.jfr in the run dir; summarise with bench/lib/jfr-top.sh).
# Also each side's RSS (and peak) and its collector's counts after the rounds, in the summary.
source "$(dirname "$0")/lib/common.sh"
MACHINES="${MACHINES:-10000}"; WARM_MACHINES="${WARM_MACHINES:-500}"
AFTER="$(git -C "$REPO_ROOT" rev-parse "${AFTER:-HEAD}^{commit}")" # fixed now: a commit made meanwhile is not measured
if [ -z "${BEFORE:-}" ]; then
  first="$(git -C "$REPO_ROOT" log --reverse --first-parent --grep='#31' --format=%H main | head -1)"
  [ -n "$first" ] || { log "BEFORE not given and no commit of main mentions #31: name the ref to compare with"; exit 1; }
  BEFORE="$first^1"
fi
BEFORE="$(git -C "$REPO_ROOT" rev-parse "$BEFORE^{commit}")"
SIDES=(before after)
declare -A REF=([before]="$BEFORE" [after]="$AFTER")
ensure_tools; ensure_drivers
declare -A JAR
for side in "${SIDES[@]}"; do
  BENCH_REF="${REF[$side]}" build_service inventory-service
  JAR[$side]="$INVENTORY_SERVICE_JAR"
done
log "run dir $RUN_DIR; $(machine_line); load $(load_now); before ${BEFORE:0:12}, after ${AFTER:0:12}"
echo "load_start $(load_now | tr ' ' ,)" >"$RUN_DIR/results.txt"

# the JVM flags and MALLOC_ARENA_MAX of the side's image (inventory-service's Dockerfile.jvm at its commit)
image_env() { # image_env ref : prints "JVM_FLAGS|MALLOC_ARENA_MAX"
  local f; f="$(git -C "$REPO_ROOT" show "$1:inventory-service/src/main/docker/Dockerfile.jvm" 2>/dev/null || true)"
  echo "$(sed -n 's/^ENV JVM_FLAGS="\(.*\)"$/\1/p' <<<"$f")|$(sed -n 's/^ENV MALLOC_ARENA_MAX=\([0-9]*\)$/\1/p' <<<"$f")"
}
OPERATOR_TOKEN="bench-operator-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
declare -A KAFKA_OF METRICS_OF PID_OF
for side in "${SIDES[@]}"; do
  start_kafka "kafka-$side"; KAFKA_OF[$side]="$KAFKA"
  db="$(create_db "ingest_$side")"
  port="$(free_port)"; mport="$(free_port)"
  IFS='|' read -r flags arenas <<<"$(image_env "${REF[$side]}")"
  signing=(); BENCH_REF="${REF[$side]}" signed_ref && signing=(-Dinventory.signing.service-key="$BENCH_GRANTS_PUB")
  extra="$(tr 'a-z' 'A-Z' <<<"$side")_OPTS"; extra="${!extra:-}"
  # shellcheck disable=SC2086
  INVENTORY_DB_URL="postgresql://$PGHOST:$PGPORT/$db" INVENTORY_DB_USER="$PGUSER" INVENTORY_DB_PASSWORD="$PGPASSWORD" \
    KAFKA_BOOTSTRAP_SERVERS="$KAFKA" INVENTORY_CONSUMER_GROUP="bench-$RUN_ID-$side" \
    start_bg "inventory-$side" env ${arenas:+MALLOC_ARENA_MAX=$arenas} java $flags $extra \
      -Dquarkus.http.port="$port" -Dquarkus.management.port="$mport" \
      -Dapi.auth.tokens.bench-operator.token="$OPERATOR_TOKEN" -Dapi.auth.tokens.bench-operator.roles=operator \
      -Dapi.rate-limit.enabled=false "${signing[@]}" -jar "${JAR[$side]}"
  PID_OF[$side]=$LAST_PID
  wait_http "http://127.0.0.1:$port/q/health/ready" 240 || { tail -30 "$RUN_DIR/inventory-$side.log" >&2; exit 1; }
  METRICS_OF[$side]="http://127.0.0.1:$mport/q/metrics"
  curl -fsS -o /dev/null "${METRICS_OF[$side]}" 2>/dev/null || METRICS_OF[$side]="http://127.0.0.1:$port/q/metrics"
  log "$side: inventory-service of ${REF[$side]:0:12} at :$port (flags '$flags${extra:+ $extra}', MALLOC_ARENA_MAX ${arenas:-default}), broker $KAFKA"
  BENCH_REF="${REF[$side]}" register_keys "http://127.0.0.1:$port" "$OPERATOR_TOKEN" "warm-%05d" 0 "$WARM_MACHINES"
  BENCH_REF="${REF[$side]}" register_keys "http://127.0.0.1:$port" "$OPERATOR_TOKEN" "fm-%05d" 0 "$MACHINES" 32
  driver FleetSim inventory "$KAFKA" "warm-%05d" 0 "$WARM_MACHINES" 8 2 --await-metrics "${METRICS_OF[$side]}" "$WARM_MACHINES" >"$RUN_DIR/warmup-$side.txt"
  assert_no_drops "inventory-service ($side)" "${METRICS_OF[$side]}"
done
if [ "${JFR:-0}" = 1 ]; then
  for side in "${SIDES[@]}"; do jcmd "${PID_OF[$side]}" JFR.start name=ingest settings=profile >/dev/null; done
fi

ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_ticks() { # CPU of every postgres process now (the server's backends serve both sides; only one side is ingesting)
  local pid s=0
  for pid in $(pgrep -x postgres || true); do s=$(( s + $(ticks "$pid") )); done
  echo "$s"
}
HZ="$(getconf CLK_TCK)"
# ingest_round side round : prints "rate svc_cpu_us_per_record pg_cpu_us_per_record"
ingest_round() {
  local side="$1" r="$2" c0 p0 rate
  c0="$(ticks "${PID_OF[$side]}")"; p0="$(pg_ticks)"
  driver FleetSim inventory "${KAFKA_OF[$side]}" "fm-%05d" 0 "$MACHINES" 8 2 "570.86.$r" \
    --await-metrics "${METRICS_OF[$side]}" "$MACHINES" >"$RUN_DIR/ingest-$side-$r.txt"
  rate="$(awk '$1=="ingest_rate" {print $2}' "$RUN_DIR/ingest-$side-$r.txt")"
  awk -v rate="$rate" -v c="$(( $(ticks "${PID_OF[$side]}") - c0 ))" -v p="$(( $(pg_ticks) - p0 ))" -v hz="$HZ" -v n="$MACHINES" \
    'BEGIN {printf "%s %.0f %.0f\n", rate, c / hz * 1e6 / n, p / hz * 1e6 / n}'
}
for r in $(seq 1 "$ROUNDS"); do
  order=(before after); [ $(( r % 2 )) = 0 ] && order=(after before)
  declare -A RATE=() SVC=() PG=()
  for side in "${order[@]}"; do
    read -r RATE[$side] SVC[$side] PG[$side] < <(ingest_round "$side" "$r")
    log "round $r $side (${REF[$side]:0:12}): ${RATE[$side]} machines/s, service CPU ${SVC[$side]} µs/record, PostgreSQL CPU ${PG[$side]} µs/record; load $(load_now)"
  done
  read -r anchor_ms anchor_records < <(driver ReadToEnd "${KAFKA_OF[after]}" gpu.inventory.v1 0 2>/dev/null | awk '$1=="read_ms" {print $2, $4}')
  anchor_rate="$(awk -v n="$anchor_records" -v ms="$anchor_ms" 'BEGIN {printf "%.1f", n/(ms/1000)}')"
  log "round $r anchor: plain consumer $anchor_rate records/s ($anchor_records records); load $(load_now)"
  echo "$r ${RATE[before]} ${RATE[after]} $anchor_rate ${SVC[before]} ${SVC[after]} ${PG[before]} ${PG[after]} $anchor_records $(load_now | cut -d' ' -f1)" >>"$RUN_DIR/rounds.txt"
done
for side in "${SIDES[@]}"; do
  assert_no_drops "inventory-service ($side)" "${METRICS_OF[$side]}"
  [ "${JFR:-0}" = 1 ] && jcmd "${PID_OF[$side]}" JFR.dump name=ingest filename="$RUN_DIR/inventory-$side.jfr" >/dev/null
done

# memory and collections of each side after its rounds (a heap flag compared on one commit shows in both)
declare -A MEM_OF
for side in "${SIDES[@]}"; do
  pid="${PID_OF[$side]}"
  MEM_OF[$side]="$(awk '$1=="VmRSS:" {r=$2} $1=="VmHWM:" {h=$2} END {printf "RSS %.1f MiB (peak %.1f)", r/1024, h/1024}' "/proc/$pid/status"); $(jstat -gc "$pid" 2>/dev/null \
    | awk 'NR==1 {for (i=1;i<=NF;i++) c[$i]=i} NR==2 {printf "%d young collections (%.2f s), %d full (%.2f s) since start", $c["YGC"], $c["YGCT"], $c["FGC"], $c["FGCT"]}')"
done

col() { awk -v c="$1" '{print $c}' "$RUN_DIR/rounds.txt" | median; }
per_round() { awk -v a="$1" -v b="$2" '$b > 0 {printf "%.3f\n", $a/$b}' "$RUN_DIR/rounds.txt" | median; }
short() { git -C "$REPO_ROOT" rev-parse --short "$1"; }
{
  echo "## ingest before/after  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at start $(sed -n 's/^load_start //p' "$RUN_DIR/results.txt"), at end $(load_now); $MACHINES machines x 8 GPUs, $ROUNDS rounds, sides alternating)"
  printf '| figure | before (%s) | after (%s) | after/before (median of rounds) |\n|---|---|---|---|\n' "$(short "$BEFORE")" "$(short "$AFTER")"
  printf '| ingest, machines/s | %s | %s | %s |\n' "$(col 2)" "$(col 3)" "$(per_round 3 2)"
  printf '| ingest / plain consumer (%s records/s) | %s | %s | |\n' "$(col 4)" "$(per_round 2 4)" "$(per_round 3 4)"
  printf '| inventory-service CPU, µs per record | %s | %s | %s |\n' "$(col 5)" "$(col 6)" "$(per_round 6 5)"
  printf '| PostgreSQL CPU, µs per record | %s | %s | %s |\n' "$(col 7)" "$(col 8)" "$(per_round 8 7)"
  printf '| memory after the rounds | %s | %s | |\n' "${MEM_OF[before]}" "${MEM_OF[after]}"
  echo
  echo "per round: round before_rate after_rate anchor_rate before_svc_us after_svc_us before_pg_us after_pg_us anchor_records load1"
  sed 's/^/    /' "$RUN_DIR/rounds.txt"
} | tee "$RUN_DIR/summary.md"
figure "inventory ingest, after vs before, $MACHINES machines × 8 GPUs, machines/s" "$(col 3)" \
  "before ($(short "$BEFORE")): $(col 2) machines/s; plain consumer $(col 4) records/s" "$(per_round 3 2)" "ratio>=1.0"
figure "inventory ingest vs plain consumer (after), $MACHINES machines" "$(col 3)" \
  "plain consumer reading gpu.inventory.v1: $(col 4) records/s" "$(per_round 3 4)" "ratio>=0.8"
