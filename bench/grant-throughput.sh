#!/usr/bin/env bash
# Bench 3 — grant throughput: grants/s through grant-service's REST API, 16 concurrent clients,
# each on its own machines (no lock contention), against pgbench running the same write transaction
# (lib/grant-tx.sql: advisory lock + insert grant + bump version + insert outbox) with 16 clients on
# the same database. Rounds alternate A (service) / B (pgbench). Target: service >= 50 % of pgbench.
# Then 64 concurrent exclusive grants of one device (64 repos of one machine): exactly one winner,
# p50/p99 of the losers' answers.
# BEFORE=<commit> [<commit>...]: a grant-service packaged from each commit (git archive, as BENCH_REF's) runs beside
# the one of BENCH_REF (the "after", default HEAD), each on a database of its own and its own inventory consumer
# group on the same broker; every round measures each of them, in an order that alternates between rounds, then
# pgbench: a before/after in the same run, each side with its ratio to the same rounds' pgbench, and after/before.
# The load: DRIVER=wrk (default) runs lib/grant-load.lua in wrk, one thread and one connection per client, a C
# client as pgbench's is; DRIVER=java runs bench/java/GrantLoad (Java's HttpClient, which cost 4.4 ms of CPU per
# grant on the 2 cores it shares with the service: more than PostgreSQL's work per grant). Each round prints the
# CPU ms per grant of the service, the broker, PostgreSQL and the driver, and per transaction of pgbench.
# Env: ROUNDS (3), DURATION seconds (10), CLIENTS (16), WARMUP seconds (10: the JVM must be done compiling
# the write path, or the first round measures the JIT), BEFORE (none), JFR (1: a recording per service), DRIVER,
# MPC (machines per client per round: 20, 640 grants; a client that granted them all asks again, answered 200).
source "$(dirname "$0")/lib/common.sh"
# what the JFR summary counts samples by (jfr-top.sh GROUPS_OF: inclusive, a sample may count in several)
JFR_GROUPS="HTTP request (RESTEasy)=org.jboss.resteasy;grant rules and writes=GrantService;outbox relay=OutboxRelay;signing=Ed25519|RecordSigner"
JFR_GROUPS="$JFR_GROUPS;PostgreSQL client=io.vertx.pgclient|io.vertx.sqlclient;Kafka client=org.apache.kafka;JSON (Jackson)=com.fasterxml.jackson"
JFR_GROUPS="$JFR_GROUPS;Netty event loop=io.netty.channel.nio.NioEventLoop.run;metrics=micrometer;Hibernate=org.hibernate"
DURATION="${DURATION:-10}"; CLIENTS="${CLIENTS:-16}"; MPC="${MPC:-20}"; WARMUP="${WARMUP:-10}"; DRIVER="${DRIVER:-wrk}"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
ensure_tools; ensure_drivers

# the sides: each BEFORE commit, then BENCH_REF (the after, last: its database holds pgbench's tables)
AFTER_REF="$BENCH_REF"
declare -a SIDES=()
declare -A REF=() JAR=() DBN=() URL=() METRICS=() PID=()
for ref in ${BEFORE:-} "$AFTER_REF"; do
  commit="$(git -C "$REPO_ROOT" rev-parse --short=7 "$ref^{commit}")"
  side="gs-$commit"; [ "$ref" = "$AFTER_REF" ] && side="gs-after-$commit"
  BENCH_REF="$ref" build_service grant-service
  SIDES+=("$side"); REF[$side]="$ref"; JAR[$side]="$GRANT_SERVICE_JAR"
done
AFTER_SIDE="${SIDES[-1]}"
log "run dir $RUN_DIR; $(machine_line); load $(load_now); sides ${SIDES[*]}"
start_kafka
for side in "${SIDES[@]}"; do
  db="$(create_db "${side//-/_}")"
  DBN[$side]="$db"
  # each side reads every inventory into its own database: a consumer group of its own; a JDBC pool of 6 for Flyway at
  # start (b498d7a's MigrationTurns took a connection of its own beside Flyway's: its start timed out acquiring one more).
  # With several sides, a side's idle connections close after 3 s: each keeps up to 20 (its pool) after its window, and
  # the shared server's 100 connections ran out ("too many clients") during the key registration
  opts="-Dmp.messaging.incoming.inventory.group.id=bench-$side -Dquarkus.datasource.jdbc.max-size=6"
  [ "${#SIDES[@]}" -gt 1 ] && opts="$opts -Dquarkus.datasource.reactive.idle-timeout=3s"
  BENCH_REF="${REF[$side]}" GRANT_SERVICE_JAR="${JAR[$side]}" GS_NAME="$side" GS_JAVA_OPTS="${GS_JAVA_OPTS:-} $opts" \
    start_grant_service "$db"
  URL[$side]="$GS_URL"; METRICS[$side]="$GS_METRICS"; PID[$side]="$GS_PID"
done
DB="${DBN[$AFTER_SIDE]}"

# inventories: per round CLIENTS x MPC machines with 8 GPUs and 4 repos; per round one machine with 64 repos
PER_ROUND=$(( CLIENTS * MPC ))
# their keys first, as rdc machine setup registers them (not measured): unsigned or unregistered inventories are
# dropped; each side's database registers them
for side in "${SIDES[@]}"; do
  register_keys "${URL[$side]}" - "gt-%05d" 0 $(( ROUNDS * PER_ROUND ))
  register_keys "${URL[$side]}" - "gx-%d" 0 "$ROUNDS"
  register_keys "${URL[$side]}" - "gw-%05d" 0 $(( CLIENTS * 4 ))
done
driver FleetSim inventory "$KAFKA" "gt-%05d" 0 $(( ROUNDS * PER_ROUND )) 8 4 >&2
driver FleetSim inventory "$KAFKA" "gx-%d" 0 "$ROUNDS" 1 64 >&2
driver FleetSim inventory "$KAFKA" "gw-%05d" 0 $(( CLIENTS * 4 )) 8 4 >&2
for side in "${SIDES[@]}"; do
  u="${URL[$side]}"
  driver GrantLoad ready "$u" "$(printf 'gt-%05d' $(( ROUNDS * PER_ROUND - 1 )))" repo-3 || { assert_no_drops "$side" "${METRICS[$side]}"; exit 1; }
  driver GrantLoad ready "$u" "gx-$(( ROUNDS - 1 ))" repo-63 || { assert_no_drops "$side" "${METRICS[$side]}"; exit 1; }
  driver GrantLoad ready "$u" "$(printf 'gw-%05d' $(( CLIENTS * 4 - 1 )))" repo-3
  assert_no_drops "$side" "${METRICS[$side]}"
done
prepare_pgbench_tables "$DB"
log "inventories known to every grant-service; load $(load_now)"

# children_ms : sets CHILDREN_MS, the CPU ms (user + system) of this shell's finished children so far (bash's times,
# which must run in this shell: a $(...) subshell has no children of its own)
children_ms() {
  times >"$RUN_DIR/times.txt"
  CHILDREN_MS="$(tail -1 "$RUN_DIR/times.txt" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d\n", t * 1000 }')"
}
# grant_load url pattern seconds per-client offset out err : one window of CLIENTS clients' grants (DRIVER), GrantLoad's lines
# in out, with driver_cpu_ms_per_grant (the driver's CPU over the window per answer)
grant_load() {
  local url="$1" pattern="$2" seconds="$3" per="$4" offset="$5" out="$6" err="$7"
  if [ "$DRIVER" = java ]; then
    driver GrantLoad throughput "$url" "$pattern" "$CLIENTS" "$seconds" "$per" 4 8 "$offset" >"$out" 2>"$err"
    return
  fi
  local c0 c1
  children_ms; c0="$CHILDREN_MS"
  wrk -t"$CLIENTS" -c"$CLIENTS" -d"${seconds}s" --timeout 30s -s "$BENCH_DIR/lib/grant-load.lua" "$url" \
    -- "$pattern" "$offset" "$per" 4 8 >"$out.wrk" 2>"$err"
  children_ms; c1="$CHILDREN_MS"
  sed -n '/^grants_per_s/,$p' "$out.wrk" >"$out"
  grep '^statuses' "$out" | grep -o '=[0-9]*' | tr -d = | awk -v ms=$(( c1 - c0 )) '{s += $1} END {printf "driver_cpu_ms_per_grant %.3f\n", (s > 0 ? ms / s : 0)}' >>"$out"
}

# warm-up of every side (JIT, pools) and of pgbench, not counted
for side in "${SIDES[@]}"; do
  grant_load "${URL[$side]}" "gw-%05d" "$WARMUP" 4 0 "$RUN_DIR/warmup-$side.txt" "$RUN_DIR/warmup-$side.err" || true
done
pgbench_run "$DB" "$CLIENTS" 3 >/dev/null

# rounds.txt: round side grants/s p50 p99 pgbench-tps pgbench-avg-ms (pgbench once per round, after the sides)
for r in $(seq 1 "$ROUNDS"); do
  off=$(( (r - 1) * PER_ROUND ))
  order=("${SIDES[@]}")
  if (( r % 2 == 0 )); then # every other round the other way round: neither side always runs first
    order=(); for (( i=${#SIDES[@]}-1; i>=0; i-- )); do order+=("${SIDES[$i]}"); done
  fi
  lines=()
  for side in "${order[@]}"; do
    # machines of this round: gt-<off> .. gt-<off + PER_ROUND - 1>, every (repo, gpu) granted once (each side's own database)
    out="$RUN_DIR/$side-$r.txt"
    c0="$(cpu_ms "${PID[$side]}") $(cpu_ms "$KAFKA_PID") $(pg_cpu_ms)"; w0="$(date +%H:%M:%S)"
    grant_load "${URL[$side]}" "gt-%05d" "$DURATION" "$MPC" "$off" "$out" "$RUN_DIR/load-$side-$r.err"
    c1="$(cpu_ms "${PID[$side]}") $(cpu_ms "$KAFKA_PID") $(pg_cpu_ms)"; echo "$w0-$(date +%H:%M:%S)" >>"$RUN_DIR/windows-$side.txt"
    svc="$(awk '$1=="grants_per_s" {print $2}' "$out")"
    # CPU ms per grant over the load's window: the service (request, transaction, relay), the broker, PostgreSQL, the driver
    echo "$r $side $c0 $c1 $(grep '^statuses' "$out" | grep -o '=[0-9]*' | tr -d = | awk '{s+=$1} END {print s+0}') \
      $(awk '$1=="driver_cpu_ms_per_grant" {print $2}' "$out")" \
      | awk '{n = $9 > 0 ? $9 : 1; printf "%s %s %.3f %.3f %.3f %s\n", $1, $2, ($6-$3)/n, ($7-$4)/n, ($8-$5)/n, $10}' >>"$RUN_DIR/cpu.txt"
    lines+=("$r $side $svc $(awk '$1=="p50_ms" {print $2}' "$out") $(awk '$1=="p99_ms" {print $2}' "$out")")
    log "round $r: $side $svc grants/s ($(grep statuses "$out" | xargs)); load $(load_now)"
  done
  p0="$(pg_cpu_ms)"; children_ms; d0="$CHILDREN_MS"
  pgbench_run "$DB" "$CLIENTS" "$DURATION" >"$RUN_DIR/pgbench-round-$r.txt"
  children_ms; d1="$CHILDREN_MS"
  read -r tps lat <"$RUN_DIR/pgbench-round-$r.txt"
  # PostgreSQL's CPU and pgbench's own (the anchor's driver) per transaction
  echo "$r pgbench $p0 $(pg_cpu_ms) $tps $DURATION $(( d1 - d0 ))" \
    | awk '{n = $5 * $6; printf "%s %s - - %.3f %.3f\n", $1, $2, (n > 0 ? ($4-$3)/n : 0), (n > 0 ? $7/n : 0)}' >>"$RUN_DIR/cpu.txt"
  log "round $r: pgbench $tps tps (avg ${lat} ms); load $(load_now)"
  for l in "${lines[@]}"; do echo "$l $tps $lat" >>"$RUN_DIR/rounds.txt"; done
done

for side in "${SIDES[@]}"; do
  for r in $(seq 0 $(( ROUNDS - 1 ))); do
    driver GrantLoad exclusive "${URL[$side]}" "gx-$r" 64 nvidia.com/gpu=0 >"$RUN_DIR/exclusive-$side-$r.txt" 2>&1
    log "exclusive round $r, $side: $(xargs <"$RUN_DIR/exclusive-$side-$r.txt")"
  done
  assert_no_drops "$side" "${METRICS[$side]}"
done

# JFR=1: each side's profile over its measured windows only (not its start, the set-up or the exclusive rounds)
if [ "${JFR:-0}" = 1 ]; then
  jfr_dump
  for side in "${SIDES[@]}"; do
    WINDOWS="$(paste -sd, "$RUN_DIR/windows-$side.txt")" GROUPS_OF="$JFR_GROUPS" \
      bash "$BENCH_DIR/lib/jfr-top.sh" "$RUN_DIR/$side.jfr" 30 >"$RUN_DIR/jfr-top-$side.txt" 2>&1 || true
  done
fi

of() { awk -v s="$1" '$2==s' "$RUN_DIR/rounds.txt"; } # the rounds of one side
{
  echo "## grant throughput  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); rounds $ROUNDS x ${DURATION}s, $CLIENTS clients)"
  printf '| round | grant-service | service grants/s | pgbench tps (same tx) | ratio | service p50 ms | service p99 ms | pgbench avg ms |\n|---|---|---|---|---|---|---|---|\n'
  awk -v refs="$(for s in "${SIDES[@]}"; do printf '%s=%s ' "$s" "${REF[$s]}"; done)" '
    BEGIN { n = split(refs, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); ref[kv[1]] = kv[2] } }
    {printf "| %s | %s (%s) | %s | %s | %.3f | %s | %s | %s |\n", $1, $2, ref[$2], $3, $6, $3/$6, $4, $5, $7}' "$RUN_DIR/rounds.txt"
  for side in "${SIDES[@]}"; do
    printf '| **median** | %s | %s | %s | %s | | | |\n' "$side" "$(of "$side" | awk '{print $3}' | median)" \
      "$(of "$side" | awk '{print $6}' | median)" "$(of "$side" | awk '$6 > 0 {printf "%.3f\n", $3/$6}' | median)"
  done
  echo "target: service >= 0.50 x pgbench"
  for side in "${SIDES[@]:0:${#SIDES[@]}-1}"; do
    # after/before per round (same round, same pgbench), then the median of those
    printf 'after/before, %s vs %s: median of the rounds %s (rounds: %s)\n' "$AFTER_SIDE" "$side" \
      "$(join -j1 <(of "$AFTER_SIDE" | awk '{print $1, $3}' | sort) <(of "$side" | awk '{print $1, $3}' | sort) | awk '$3 > 0 {printf "%.3f\n", $2/$3}' | median)" \
      "$(join -j1 <(of "$AFTER_SIDE" | awk '{print $1, $3}' | sort) <(of "$side" | awk '{print $1, $3}' | sort) | awk '$3 > 0 {printf "%.2f ", $2/$3}')"
  done
  echo
  echo "CPU ms per grant over each load window (per pgbench transaction on its row; PostgreSQL's figure counts every process of the shared server):"
  printf '| round | what | service | Kafka broker | PostgreSQL | load driver |\n|---|---|---|---|---|---|\n'
  awk '{printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6}' "$RUN_DIR/cpu.txt"
  for side in "${SIDES[@]}" pgbench; do
    awk -v s="$side" '$2==s' "$RUN_DIR/cpu.txt" >"$RUN_DIR/cpu-$side.txt"
    printf '| **median** | %s | %s | %s | %s | %s |\n' "$side" "$(awk '{print $3}' "$RUN_DIR/cpu-$side.txt" | median)" \
      "$(awk '{print $4}' "$RUN_DIR/cpu-$side.txt" | median)" "$(awk '{print $5}' "$RUN_DIR/cpu-$side.txt" | median)" \
      "$(awk '{print $6}' "$RUN_DIR/cpu-$side.txt" | median)"
  done
  echo
  printf '| exclusive round | grant-service | winners | answers | losers p50 ms | losers p99 ms |\n|---|---|---|---|---|---|\n'
  for side in "${SIDES[@]}"; do
    for r in $(seq 0 $(( ROUNDS - 1 ))); do
      f="$RUN_DIR/exclusive-$side-$r.txt"
      printf '| %s | %s | %s | %s | %s | %s |\n' "$r" "$side" "$(awk '$1=="winners" {print $2}' "$f")" "$(grep '^statuses' "$f" | cut -d' ' -f2-)" \
        "$(awk '$1=="losers_p50_ms" {print $2}' "$f")" "$(awk '$1=="losers_p99_ms" {print $2}' "$f")"
    done
  done
  echo
  echo "expected: exactly 1 winner (201, or 202 \"recorded, not yet enforced\" when no gate serves the machine, as here), 63 answers 409"
} | tee "$RUN_DIR/summary.md"
# issue 21's figure, machine-readable (bench/run-all.sh collects it): BENCH_REF's service
figure "grants/s vs pgbench running the same transaction, $CLIENTS clients" "$(of "$AFTER_SIDE" | awk '{print $3}' | median)" \
  "pgbench $(of "$AFTER_SIDE" | awk '{print $6}' | median) tps" "$(of "$AFTER_SIDE" | awk '$6 > 0 {printf "%.3f\n", $3/$6}' | median)" "ratio>=0.5"
