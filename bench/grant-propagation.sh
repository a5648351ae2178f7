#!/usr/bin/env bash
# Bench 2 — grant → enforced: from the grant (or revoke) API call to the gate admitting (refusing)
# the next container create naming the device, p50/p99 over ROUNDS x OPS grants and revokes,
# against raw Kafka produce→consume latency on the same broker (KafkaLatency, relay's producer
# settings) and one PostgreSQL transaction (pgbench, the grant's write transaction, 1 client),
# measured in the same run, rounds alternating A (grant→enforced) / B (Kafka) / C (PostgreSQL).
# Target: p99 <= 2 x Kafka p99 + one PostgreSQL transaction.
# Env: ROUNDS (5), OPS per round (200).
ROUNDS="${ROUNDS:-5}"; OPS="${OPS:-200}"
source "$(dirname "$0")/lib/common.sh"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
ensure_tools; ensure_drivers; build_service grant-service; build_service docker-gate
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
start_kafka
DB="$(create_db propagation)"
start_grant_service "$DB"
start_nginx_daemon

MACHINE=prop-bench
GUID="$(driver FleetSim guid "$MACHINE" repo-0)"
GATE_PORT="$(free_port)"
cat >"$RUN_DIR/repos.yaml" <<YAML
machine: $MACHINE
repos:
  - name: repo-0
    guid: $GUID
    listen: tcp://127.0.0.1:$GATE_PORT
    daemon: tcp://127.0.0.1:$NGX_PORT
YAML
# the machine's key, registered as rdc machine setup does: its inventory (FleetSim) and its gate's status records
# (the gate signs with the same pair) count only when signed by it
register_keys "$GS_URL" - "$MACHINE" 0 1
GATE_SIGNING_KEY="$RUN_DIR/gate-machine-key.pem"
driver FleetSim keyfile "$MACHINE" "$GATE_SIGNING_KEY"
driver FleetSim inventory "$KAFKA" "$MACHINE" 0 1 8 1 >&2
driver GrantLoad ready "$GS_URL" "$MACHINE" repo-0 || { assert_no_drops grant-service "$GS_METRICS"; exit 1; }
start_gate gate "$RUN_DIR/repos.yaml" "$RUN_DIR/gate-state"
wait_http "http://127.0.0.1:$GATE_MGMT/q/health/ready" 120
prepare_pgbench_tables "$DB"
pgbench_run "$DB" 1 t50 >/dev/null
log "grant-service, gate and inventory ready; load $(load_now)"

for r in $(seq 1 "$ROUNDS"); do
  driver GrantEnforced "$GS_URL" "http://127.0.0.1:$GATE_PORT" "$MACHINE" repo-0 nvidia.com/gpu=0 "$OPS" >"$RUN_DIR/enforced-$r.txt" 2>&1 \
    || { cat "$RUN_DIR/enforced-$r.txt" >&2; exit 1; }
  driver KafkaLatency "$KAFKA" "$OPS" >"$RUN_DIR/kafka-$r.txt" 2>&1 || { cat "$RUN_DIR/kafka-$r.txt" >&2; exit 1; }
  read -r _tps pglat < <(pgbench_run "$DB" 1 "t$OPS")
  g() { awk -v k="$2" '$1==k {print $2}' "$1"; }
  echo "$r $(g "$RUN_DIR/enforced-$r.txt" flip_p50_ms) $(g "$RUN_DIR/enforced-$r.txt" flip_p99_ms) $(g "$RUN_DIR/kafka-$r.txt" p50_ms) $(g "$RUN_DIR/kafka-$r.txt" p99_ms) $pglat $(g "$RUN_DIR/enforced-$r.txt" api_p50_ms) $(g "$RUN_DIR/enforced-$r.txt" api_p99_ms)" >>"$RUN_DIR/rounds.txt"
  log "round $r: $(tail -1 "$RUN_DIR/rounds.txt") (round flip50 flip99 kafka50 kafka99 pg api50 api99); load $(load_now)"
done
assert_no_drops grant-service "$GS_METRICS"
assert_no_drops gate "$GATE_METRICS"

{
  echo "## grant → enforced  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); $ROUNDS rounds x $OPS grants+revokes)"
  printf '| round | grant→enforced p50 ms | p99 ms | Kafka produce→consume p50 ms | p99 ms | PostgreSQL tx ms | budget 2×Kafka p99 + tx | p99 / budget | API answer (wait=5s) p50 / p99 ms |\n|---|---|---|---|---|---|---|---|---|\n'
  awk '{b=2*$5+$6; printf "| %s | %s | %s | %s | %s | %s | %.3f | %.2f | %s / %s |\n", $1, $2, $3, $4, $5, $6, b, $3/b, $7, $8}' "$RUN_DIR/rounds.txt"
  printf '| **median** | %s | %s | %s | %s | %s | | %s | %s / %s |\n' \
    "$(awk '{print $2}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{print $3}' "$RUN_DIR/rounds.txt" | median)" \
    "$(awk '{print $4}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{print $5}' "$RUN_DIR/rounds.txt" | median)" \
    "$(awk '{print $6}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{printf "%.3f\n", $3/(2*$5+$6)}' "$RUN_DIR/rounds.txt" | median)" \
    "$(awk '{print $7}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{print $8}' "$RUN_DIR/rounds.txt" | median)"
  echo "target: grant→enforced p99 <= 2 x Kafka p99 + one PostgreSQL transaction (ratio <= 1.00)"
} | tee "$RUN_DIR/summary.md"
