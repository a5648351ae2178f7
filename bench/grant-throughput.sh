#!/usr/bin/env bash
# Bench 3 — grant throughput: grants/s through grant-service's REST API, 16 concurrent clients,
# each on its own machines (no lock contention), against pgbench running the same write transaction
# (lib/grant-tx.sql: advisory lock + insert grant + bump version + insert outbox) with 16 clients on
# the same database. Rounds alternate A (service) / B (pgbench). Target: service >= 50 % of pgbench.
# Then 64 concurrent exclusive grants of one device (64 repos of one machine): exactly one winner,
# p50/p99 of the losers' answers.
# Env: ROUNDS (3), DURATION seconds (10), CLIENTS (16), WARMUP seconds (10: the JVM must be done compiling
# the write path, or the first round measures the JIT).
source "$(dirname "$0")/lib/common.sh"
DURATION="${DURATION:-10}"; CLIENTS="${CLIENTS:-16}"; MPC="${MPC:-20}"; WARMUP="${WARMUP:-10}"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
ensure_tools; ensure_drivers; build_service grant-service
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
start_kafka
DB="$(create_db grants)"
start_grant_service "$DB"

# inventories: per round CLIENTS x MPC machines with 8 GPUs and 4 repos; per round one machine with 64 repos
PER_ROUND=$(( CLIENTS * MPC ))
# their keys first, as rdc machine setup registers them (not measured): unsigned or unregistered inventories are dropped
register_keys "$GS_URL" - "gt-%05d" 0 $(( ROUNDS * PER_ROUND ))
register_keys "$GS_URL" - "gx-%d" 0 "$ROUNDS"
register_keys "$GS_URL" - "gw-%05d" 0 $(( CLIENTS * 4 ))
driver FleetSim inventory "$KAFKA" "gt-%05d" 0 $(( ROUNDS * PER_ROUND )) 8 4 >&2
driver FleetSim inventory "$KAFKA" "gx-%d" 0 "$ROUNDS" 1 64 >&2
driver FleetSim inventory "$KAFKA" "gw-%05d" 0 $(( CLIENTS * 4 )) 8 4 >&2
driver GrantLoad ready "$GS_URL" "$(printf 'gt-%05d' $(( ROUNDS * PER_ROUND - 1 )))" repo-3 || { assert_no_drops grant-service "$GS_METRICS"; exit 1; }
driver GrantLoad ready "$GS_URL" "gx-$(( ROUNDS - 1 ))" repo-63 || { assert_no_drops grant-service "$GS_METRICS"; exit 1; }
assert_no_drops grant-service "$GS_METRICS"
prepare_pgbench_tables "$DB"
log "inventories known to grant-service; load $(load_now)"

# warm-up of both sides (JIT, pools), not counted
driver GrantLoad ready "$GS_URL" "$(printf 'gw-%05d' $(( CLIENTS * 4 - 1 )))" repo-3
driver GrantLoad throughput "$GS_URL" "gw-%05d" "$CLIENTS" "$WARMUP" 4 4 8 >"$RUN_DIR/warmup.txt" 2>&1 || true
pgbench_run "$DB" "$CLIENTS" 3 >/dev/null

for r in $(seq 1 "$ROUNDS"); do
  off=$(( (r - 1) * PER_ROUND ))
  # machines of this round: gt-<off> .. gt-<off + PER_ROUND - 1>, every (repo, gpu) granted once
  driver GrantLoad throughput "$GS_URL" "gt-%05d" "$CLIENTS" "$DURATION" "$MPC" 4 8 "$off" >"$RUN_DIR/service-$r.txt" 2>"$RUN_DIR/load-$r.err"
  svc="$(awk '$1=="grants_per_s" {print $2}' "$RUN_DIR/service-$r.txt")"
  read -r tps lat < <(pgbench_run "$DB" "$CLIENTS" "$DURATION")
  echo "$r $svc $tps $lat $(awk '$1=="p50_ms" {print $2}' "$RUN_DIR/service-$r.txt") $(awk '$1=="p99_ms" {print $2}' "$RUN_DIR/service-$r.txt")" >>"$RUN_DIR/rounds.txt"
  log "round $r: service $svc grants/s ($(grep statuses "$RUN_DIR/service-$r.txt" | xargs)), pgbench $tps tps (avg ${lat} ms); load $(load_now)"
done

for r in $(seq 0 $(( ROUNDS - 1 ))); do
  driver GrantLoad exclusive "$GS_URL" "gx-$r" 64 nvidia.com/gpu=0 >"$RUN_DIR/exclusive-$r.txt" 2>&1
  log "exclusive round $r: $(xargs <"$RUN_DIR/exclusive-$r.txt")"
done
assert_no_drops grant-service "$GS_METRICS"

{
  echo "## grant throughput  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); rounds $ROUNDS x ${DURATION}s, $CLIENTS clients)"
  printf '| round | service grants/s | pgbench tps (same tx) | ratio | service p50 ms | service p99 ms | pgbench avg ms |\n|---|---|---|---|---|---|---|\n'
  awk '{printf "| %s | %s | %s | %.2f | %s | %s | %s |\n", $1, $2, $3, $2/$3, $5, $6, $4}' "$RUN_DIR/rounds.txt"
  printf '| **median** | %s | %s | %s | | | |\n' "$(awk '{print $2}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{print $3}' "$RUN_DIR/rounds.txt" | median)" \
    "$(awk '{printf "%.3f\n", $2/$3}' "$RUN_DIR/rounds.txt" | median)"
  echo "target: service >= 0.50 x pgbench"
  echo
  printf '| exclusive round | winners | answers | losers p50 ms | losers p99 ms |\n|---|---|---|---|---|\n'
  for r in $(seq 0 $(( ROUNDS - 1 ))); do
    f="$RUN_DIR/exclusive-$r.txt"
    printf '| %s | %s | %s | %s | %s |\n' "$r" "$(awk '$1=="winners" {print $2}' "$f")" "$(grep '^statuses' "$f" | cut -d' ' -f2-)" \
      "$(awk '$1=="losers_p50_ms" {print $2}' "$f")" "$(awk '$1=="losers_p99_ms" {print $2}' "$f")"
  done
  echo "expected: exactly 1 winner (201, or 202 "recorded, not yet enforced" when no gate serves the machine, as here), 63 answers 409"
} | tee "$RUN_DIR/summary.md"
