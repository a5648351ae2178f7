#!/usr/bin/env bash
# What a NOTIFY inside the grant's transaction costs PostgreSQL (issue 34): pgbench, CLIENTS clients, the grant
# transaction of bench/grant-throughput.sh (lib/grant-tx.sql) against the same transaction with one
# `SELECT pg_notify(...)` before its END, as the outbox trigger of grant-service's migration V4 sends at every
# change's commit. Rounds alternate plain / with NOTIFY. A NOTIFY takes the cluster-wide notify lock at commit
# and holds it until the commit is flushed, so the notifying transactions commit one after another.
# The tables: grant-service's migrations (db/migration at BENCH_REF, applied by psql) in a fresh database, and
# the copies lib/grant-tx.sql writes. Env: ROUNDS (3), DURATION seconds (10), CLIENTS (16).
source "$(dirname "$0")/lib/common.sh"
DURATION="${DURATION:-10}"; CLIENTS="${CLIENTS:-16}"
ensure_tools
DB="$(create_db notify)"
mkdir -p "$RUN_DIR/migration"
git -C "$REPO_ROOT" archive "$BENCH_REF" grant-service/src/main/resources/db/migration | tar -x -C "$RUN_DIR/migration"
# Flyway's order: by version, V3_33 < V3_40 < V4
ls "$RUN_DIR/migration/grant-service/src/main/resources/db/migration/" | sort -t_ -k1,1V | while read -r f; do
  psql -q -v ON_ERROR_STOP=1 -d "$DB" -f "$RUN_DIR/migration/grant-service/src/main/resources/db/migration/$f" >/dev/null
done
prepare_pgbench_tables "$DB"
sed 's/^END;/SELECT pg_notify(\x27bench_notify_cost\x27, \x27\x27);\nEND;/' "$BENCH_DIR/lib/grant-tx.sql" >"$RUN_DIR/grant-tx-notify.sql"
grep -q pg_notify "$RUN_DIR/grant-tx-notify.sql"
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
pgbench_run "$DB" "$CLIENTS" 3 >/dev/null
for r in $(seq 1 "$ROUNDS"); do
  read -r plain _ < <(pgbench_run "$DB" "$CLIENTS" "$DURATION")
  read -r notified _ < <(pgbench_run "$DB" "$CLIENTS" "$DURATION" "$RUN_DIR/grant-tx-notify.sql")
  echo "$r $plain $notified" >>"$RUN_DIR/rounds.txt"
  log "round $r: plain $plain tps, with NOTIFY $notified tps; load $(load_now)"
done
{
  echo "## NOTIFY in the grant transaction  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); $ROUNDS x ${DURATION}s, $CLIENTS clients)"
  printf '| round | plain tps | with NOTIFY tps | ratio |\n|---|---|---|---|\n'
  awk '{printf "| %s | %s | %s | %.3f |\n", $1, $2, $3, $3/$2}' "$RUN_DIR/rounds.txt"
  printf '| **median** | %s | %s | %s |\n' "$(awk '{print $2}' "$RUN_DIR/rounds.txt" | median)" \
    "$(awk '{print $3}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{printf "%.3f\n", $3/$2}' "$RUN_DIR/rounds.txt" | median)"
} | tee "$RUN_DIR/summary.md"
