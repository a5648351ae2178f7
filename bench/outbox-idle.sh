#!/usr/bin/env bash
# Bench — the outbox relay when nothing changes: the transactions an idle grant-service commits on its own
# database per minute (pg_stat_database.xact_commit of that database, delta over WINDOW seconds, read from the
# postgres database so the reads do not count), BEFORE (a git ref: the relay that polled every 500 ms) and
# AFTER (default HEAD: the relay woken by LISTEN/NOTIFY). Each side is packaged from its commit (build_service,
# git archive of the ref) and started on a fresh database and the same broker; nothing calls it meanwhile.
# What remains when idle (2026-12-07): the relay's look per grants.relay.poll-interval (60 s) and the snapshot
# re-publisher's look (every minute); the expiry reaper reads nothing while no grant expires, and autovacuum's
# own transactions on the fresh database count too. Prints both figures and after/before.
# Env: BEFORE (default: the parent of the commit that added the outbox's NOTIFY trigger), AFTER (HEAD),
# WINDOW seconds (60), SETTLE seconds after ready before the window opens (15), ROUNDS (3; before and after
# alternate). About 3 minutes per round once both sides are packaged.
source "$(dirname "$0")/lib/common.sh"
WINDOW="${WINDOW:-60}"; SETTLE="${SETTLE:-15}"
V4=grant-service/src/main/resources/db/migration/V4__outbox_notifies_relays.sql
AFTER="$(git -C "$REPO_ROOT" rev-parse "${AFTER:-HEAD}^{commit}")" # fixed now: a commit made meanwhile is not measured
if [ -z "${BEFORE:-}" ]; then
  added="$(git -C "$REPO_ROOT" log -1 --format=%H --diff-filter=A "$AFTER" -- "$V4")"
  [ -n "$added" ] || { log "BEFORE not given and $AFTER has no $V4: name the ref to compare with"; exit 1; }
  BEFORE="$added^"
fi
BEFORE="$(git -C "$REPO_ROOT" rev-parse "$BEFORE^{commit}")"
command -v psql >/dev/null || { log "psql is needed (apt-get install postgresql-client)"; exit 1; }
ensure_drivers
for side in BEFORE AFTER; do
  BENCH_REF="${!side}" build_service grant-service
  printf -v "JAR_$side" '%s' "$GRANT_SERVICE_JAR"
done
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
start_kafka

xacts() { psql -d postgres -Atc "select xact_commit from pg_stat_database where datname = '$1'"; }

# idle_rate side : starts that side's grant-service on a fresh database, lets it settle; sets RATE (tx/min over WINDOW)
idle_rate() {
  local side="$1" ref jar db
  ref="${!side}"; jar="JAR_$side"
  GRANT_SERVICE_JAR="${!jar}" BENCH_REF="$ref"
  db="$(create_db idle)"
  start_grant_service "$db"
  sleep "$SETTLE" # start-up work (migrations, consumers joining, the relay's first pass) is not idling
  local a b
  a="$(xacts "$db")"; sleep "$WINDOW"; b="$(xacts "$db")"
  stop_pid "$GS_PID"
  RATE="$(awk -v a="$a" -v b="$b" -v w="$WINDOW" 'BEGIN { printf "%.1f\n", (b - a) * 60 / w }')"
}

for r in $(seq 1 "$ROUNDS"); do
  idle_rate BEFORE; before="$RATE"; log "round $r: before ($BEFORE) $before tx/min; load $(load_now)"
  idle_rate AFTER; after="$RATE"; log "round $r: after ($AFTER) $after tx/min; load $(load_now)"
  echo "$r $before $after" >>"$RUN_DIR/rounds.txt"
done

b="$(awk '{print $2}' "$RUN_DIR/rounds.txt" | median)"; a="$(awk '{print $3}' "$RUN_DIR/rounds.txt" | median)"
{
  echo "## outbox relay idle  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); window ${WINDOW}s after ${SETTLE}s settling, $ROUNDS round(s))"
  printf '| round | before (%s) tx/min | after (%s) tx/min | after/before |\n|---|---|---|---|\n' \
    "$(git -C "$REPO_ROOT" rev-parse --short "$BEFORE")" "$(git -C "$REPO_ROOT" rev-parse --short "$AFTER")"
  awk '{printf "| %s | %s | %s | %.3f |\n", $1, $2, $3, ($2 > 0 ? $3/$2 : 0)}' "$RUN_DIR/rounds.txt"
  printf '| **median** | %s | %s | %s |\n' "$b" "$a" "$(ratio "$a" "$b")"
} | tee "$RUN_DIR/summary.md"
figure "idle grant-service transactions per minute, after vs before LISTEN/NOTIFY" "$a tx/min" "before $b tx/min" \
  "$(ratio "$a" "$b")" "ratio<=0.2"
