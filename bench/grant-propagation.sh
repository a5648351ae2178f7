#!/usr/bin/env bash
# Bench 2 — grant → enforced: from the grant (or revoke) API call to the gate admitting (refusing)
# the next container create naming the device, p50/p99 over ROUNDS x OPS grants and revokes,
# against raw Kafka produce→consume latency on the same broker (KafkaLatency, relay's producer
# settings) and one PostgreSQL transaction (pgbench, the grant's write transaction, 1 client),
# measured in the same run, rounds alternating A (grant→enforced) / B (Kafka) / C (PostgreSQL).
# Target: p99 <= 2 x Kafka p99 + one PostgreSQL transaction.
# Each round also logs the relay's mean send -> broker acknowledgement (grant-service's
# grants_outbox_acknowledgement_seconds, its deltas over the round) beside the anchor's (KafkaLatency's ack_p50_ms,
# ack_mean_ms), into RUN_DIR/acks.txt: whether the Kafka leg's time is spent before the broker has the record.
# Env: ROUNDS (5), OPS per round (200), KAFKA_BYTES (the Kafka anchor's value size, 1024: a snapshot is smaller),
#      STAGES (1: a bystander consumer on the grants topic times each op's stages — HTTP in, transaction + relay,
#      Kafka, gate + probe — and lib/prop-stages.py prints their p50/p99; the figures' own measurement is unchanged),
#      BEFORE (a commit: a second grant-service and gate packaged from it serve a machine of their own, "before",
#      on the same broker and PostgreSQL server, measured in the same rounds, the order of the two alternating;
#      the summary adds after/before ratios),
#      FLEET_MACHINES (0: machines of a simulated fleet, "fleet-00000"…, 8 GPUs each, registered and published to
#      the after side's grant-service before the rounds, so that the measured machine is one of a fleet),
#      RDC_OPS (0: after the rounds, that many `rdc repo gpu grant --wait 5s` and `revoke --wait 5s` of
#      nvidia.com/gpu=1 on the measured machine, wall time of the CLI, alternating with `rdc --version`; RDC names
#      the rdc, default the working tree's cli/rdc, built when missing),
#      OWN_JVM_BYSTANDER (1: a second bystander, KafkaBystander, in a JVM of its own reads the same records; compare
#      the two with lib/bystanders.py "RUN_DIR/enforced-[0-9]*-stages.txt" "RUN_DIR/enforced-[0-9]*-own-jvm.txt"),
#      GRANTS_SHAPED_ANCHOR (1: each round also runs the Kafka anchor on bench.latency.grants, shaped as gpu.grants.v1 —
#      4 partitions, its cleanup policy, a subscribed consumer — into RUN_DIR/kafka-grants-N.txt, logged beside the
#      plain one; the figure's budget keeps the plain anchor),
#      PROBE_EVERY_US (0: the probe sends one create after another until the answer flips; N: one every N µs, a flip
#      then seen up to N µs late. 1000 measured the same as 0 on 2026-12-07: the busy probe is not what slows the
#      path it measures).
ROUNDS="${ROUNDS:-5}"; OPS="${OPS:-200}"; KAFKA_BYTES="${KAFKA_BYTES:-1024}"
source "$(dirname "$0")/lib/common.sh"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
ensure_tools; ensure_drivers
SIDES=(after); [ -n "${BEFORE:-}" ] && SIDES=(before after)
AFTER_REF="$BENCH_REF"
declare -A REF=([after]="$AFTER_REF" [before]="${BEFORE:-}") MACHINE=([after]=prop-bench [before]=prop-before)
declare -A GS_JAR GATE_JAR GSURL GSMET GATEURL GATEMET GATEMGMT
for side in "${SIDES[@]}"; do
  BENCH_REF="${REF[$side]}"; build_service grant-service; build_service docker-gate
  GS_JAR[$side]="$GRANT_SERVICE_JAR"; GATE_JAR[$side]="$DOCKER_GATE_JAR"
done
BENCH_REF="$AFTER_REF"
log "run dir $RUN_DIR; $(machine_line); load $(load_now); sides ${SIDES[*]}${BEFORE:+ (before $BEFORE)}"
start_kafka
start_nginx_daemon
for side in "${SIDES[@]}"; do
  BENCH_REF="${REF[$side]}"; GRANT_SERVICE_JAR="${GS_JAR[$side]}"; GS_NAME="grant-service-$side"
  [ "$side" = after ] && GS_NAME=grant-service
  DB="$(create_db "propagation_$side")"
  [ "$side" = after ] && AFTER_DB="$DB"
  # an inventory consumer group of its own per side: in one group the two services would split the topic's
  # partitions between them, each missing the other half's machines
  GS_JAVA_OPTS="-Dmp.messaging.incoming.inventory.group.id=grant-service-inventory-$side" start_grant_service "$DB"
  GSURL[$side]="$GS_URL"; GSMET[$side]="$GS_METRICS"
done
BENCH_REF="$AFTER_REF"

# each machine's key, registered as rdc machine setup does, at every grant-service of the run (each reads every
# machine's inventory and gate status from the shared broker; an unregistered one would count as a dropped record):
# its inventory (FleetSim) and its gate's status records (the gate signs with the same pair) count only when signed by it
for side in "${SIDES[@]}"; do
  for m in "${SIDES[@]}"; do BENCH_REF="${REF[$side]}" register_keys "${GSURL[$side]}" - "${MACHINE[$m]}" 0 1; done
done
FLEET_MACHINES="${FLEET_MACHINES:-0}"
if [ "$FLEET_MACHINES" -gt 0 ]; then
  register_keys "${GSURL[after]}" - "fleet-%05d" 0 "$FLEET_MACHINES" 32
  driver FleetSim inventory "$KAFKA" "fleet-%05d" 0 "$FLEET_MACHINES" 8 2 >&2
  # the last one published known by grant-service: the fleet is in
  last="$(printf 'fleet-%05d' $((FLEET_MACHINES - 1)))"
  driver GrantLoad ready "${GSURL[after]}" "$last" repo-0 || { assert_no_drops "grant-service (after)" "${GSMET[after]}"; exit 1; }
  log "a fleet of $FLEET_MACHINES simulated machines known to grant-service; load $(load_now)"
fi
for side in "${SIDES[@]}"; do
  m="${MACHINE[$side]}"
  driver FleetSim keyfile "$m" "$RUN_DIR/gate-$side-machine-key.pem"
  driver FleetSim inventory "$KAFKA" "$m" 0 1 8 1 >&2
done
for side in "${SIDES[@]}"; do
  m="${MACHINE[$side]}"; port="$(free_port)"
  driver GrantLoad ready "${GSURL[$side]}" "$m" repo-0 || { assert_no_drops "grant-service ($side)" "${GSMET[$side]}"; exit 1; }
  cat >"$RUN_DIR/repos-$side.yaml" <<YAML
machine: $m
repos:
  - name: repo-0
    guid: $(driver FleetSim guid "$m" repo-0)
    listen: tcp://127.0.0.1:$port
    daemon: tcp://127.0.0.1:$NGX_PORT
YAML
  gname=gate; [ "$side" = after ] || gname="gate-$side"
  DOCKER_GATE_JAR="${GATE_JAR[$side]}" GATE_SIGNING_KEY="$RUN_DIR/gate-$side-machine-key.pem" \
    start_gate "$gname" "$RUN_DIR/repos-$side.yaml" "$RUN_DIR/$gname-state"
  GATEURL[$side]="http://127.0.0.1:$port"; GATEMET[$side]="$GATE_METRICS"; GATEMGMT[$side]="$GATE_MGMT"
done
for side in "${SIDES[@]}"; do wait_http "http://127.0.0.1:${GATEMGMT[$side]}/q/health/ready" 120; done
DB="$AFTER_DB"
prepare_pgbench_tables "$DB"
pgbench_run "$DB" 1 t50 >/dev/null
log "grant-service, gate and inventory ready (${SIDES[*]}); load $(load_now)"

# enforced side file : one A leg of a round for a side; its figures in file, its timelines beside it with STAGES=1
enforced() {
  local side="$1" out="$2" stages=() other=""
  [ "${STAGES:-0}" = 1 ] && stages=("$KAFKA" "${out%.txt}-stages.txt")
  if [ "${OWN_JVM_BYSTANDER:-0}" = 1 ]; then
    # a second bystander in a JVM of its own reads the same records (lib/bystanders.py compares the two)
    # env execs java: $! is the JVM itself, which writes its file on SIGTERM (a background job ignores SIGINT, and a
    # function's subshell would not pass the signal on)
    env -u JDK_JAVA_OPTIONS java -Xmx256m -XX:+UseSerialGC -Dlog4j2.level=WARN -cp "$DRIVER_CP" KafkaBystander "$KAFKA" \
      "${MACHINE[$side]}" 600 "${out%.txt}-own-jvm.txt" >"${out%.txt}-own-jvm.log" 2>&1 &
    other=$!
    until grep -q ready "${out%.txt}-own-jvm.log" 2>/dev/null; do sleep 0.1; done
  fi
  driver GrantEnforced "${GSURL[$side]}" "${GATEURL[$side]}" "${MACHINE[$side]}" repo-0 nvidia.com/gpu=0 "$OPS" "${stages[@]}" \
    >"$out" 2>&1 || { cat "$out" >&2; exit 1; }
  if [ -n "$other" ]; then kill "$other" 2>/dev/null; wait "$other" 2>/dev/null || true; fi
}
# relay_ack metrics-url: grant-service's grants_outbox_acknowledgement_seconds "sum count" (nothing before 2026-12-07)
relay_ack() {
  curl -fsS "$1" 2>/dev/null | awk '/^grants_outbox_acknowledgement_seconds_sum/ {s=$NF} /^grants_outbox_acknowledgement_seconds_count/ {c=$NF} END {if (c != "") print s, c}'
}
for r in $(seq 1 "$ROUNDS"); do
  ack0="$(relay_ack "${GSMET[after]}")"
  # with BEFORE, the order of the two sides alternates by round (neither always follows the other)
  order=("${SIDES[@]}"); [ "${#SIDES[@]}" = 2 ] && [ $((r % 2)) = 0 ] && order=(after before)
  for side in "${order[@]}"; do
    f="$RUN_DIR/enforced-$r.txt"; [ "$side" = after ] || f="$RUN_DIR/enforced-$side-$r.txt"
    enforced "$side" "$f"
  done
  if [ -n "${BEFORE:-}" ]; then
    g() { awk -v k="$2" '$1==k {print $2}' "$1"; }
    echo "$r $(g "$RUN_DIR/enforced-before-$r.txt" flip_p50_ms) $(g "$RUN_DIR/enforced-before-$r.txt" flip_p99_ms) $(g "$RUN_DIR/enforced-before-$r.txt" api_p50_ms) $(g "$RUN_DIR/enforced-before-$r.txt" api_p99_ms)" >>"$RUN_DIR/rounds-before.txt"
  fi
  driver KafkaLatency "$KAFKA" "$OPS" "$KAFKA_BYTES" >"$RUN_DIR/kafka-$r.txt" 2>&1 || { cat "$RUN_DIR/kafka-$r.txt" >&2; exit 1; }
  if [ "${GRANTS_SHAPED_ANCHOR:-0}" = 1 ]; then # the anchor again on a topic shaped as gpu.grants.v1, for comparison only
    SHAPE=grants driver KafkaLatency "$KAFKA" "$OPS" "$KAFKA_BYTES" >"$RUN_DIR/kafka-grants-$r.txt" 2>&1 || { cat "$RUN_DIR/kafka-grants-$r.txt" >&2; exit 1; }
    log "round $r anchor shaped as gpu.grants.v1 (4 partitions, subscribed): p50 $(awk '$1=="p50_ms" {print $2}' "$RUN_DIR/kafka-grants-$r.txt") p99 $(awk '$1=="p99_ms" {print $2}' "$RUN_DIR/kafka-grants-$r.txt") ack mean $(awk '$1=="ack_mean_ms" {print $2}' "$RUN_DIR/kafka-grants-$r.txt") ms; plain: p50 $(awk '$1=="p50_ms" {print $2}' "$RUN_DIR/kafka-$r.txt") p99 $(awk '$1=="p99_ms" {print $2}' "$RUN_DIR/kafka-$r.txt")"
  fi
  read -r _tps pglat < <(pgbench_run "$DB" 1 "t$OPS")
  g() { awk -v k="$2" '$1==k {print $2}' "$1"; }
  # the relay's mean send -> acknowledgement in the round (its Timer's deltas) beside the anchor's, the same broker
  ack1="$(relay_ack "${GSMET[after]}")"
  if [ -n "$ack0" ] && [ -n "$ack1" ]; then
    relay_ack_ms="$(awk -v a="$ack0" -v b="$ack1" 'BEGIN {split(a, x, " "); split(b, y, " "); n = y[2] - x[2]; if (n > 0) printf "%.3f", (y[1] - x[1]) / n * 1000; else print "-"}')"
    echo "$r $relay_ack_ms $(g "$RUN_DIR/kafka-$r.txt" ack_p50_ms) $(g "$RUN_DIR/kafka-$r.txt" ack_mean_ms)" >>"$RUN_DIR/acks.txt"
    log "round $r acknowledgement (send -> broker's ack): relay mean $relay_ack_ms ms; anchor p50 $(g "$RUN_DIR/kafka-$r.txt" ack_p50_ms) mean $(g "$RUN_DIR/kafka-$r.txt" ack_mean_ms) ms"
  fi
  echo "$r $(g "$RUN_DIR/enforced-$r.txt" flip_p50_ms) $(g "$RUN_DIR/enforced-$r.txt" flip_p99_ms) $(g "$RUN_DIR/kafka-$r.txt" p50_ms) $(g "$RUN_DIR/kafka-$r.txt" p99_ms) $pglat $(g "$RUN_DIR/enforced-$r.txt" api_p50_ms) $(g "$RUN_DIR/enforced-$r.txt" api_p99_ms)" >>"$RUN_DIR/rounds.txt"
  log "round $r: $(tail -1 "$RUN_DIR/rounds.txt") (round flip50 flip99 kafka50 kafka99 pg api50 api99)${BEFORE:+; before: $(tail -1 "$RUN_DIR/rounds-before.txt") (round flip50 flip99 api50 api99)}; load $(load_now)"
done
RDC_OPS="${RDC_OPS:-0}"
if [ "$RDC_OPS" -gt 0 ]; then
  RDC="${RDC:-$REPO_ROOT/cli/rdc}"
  if [ "$RDC" = "$REPO_ROOT/cli/rdc" ] && [ ! -f "$REPO_ROOT/cli/target/rdc.jar" ]; then
    log "building cli (mvn -pl cli -am package)"; mvn -B -q -o -f "$REPO_ROOT/pom.xml" -pl cli -am -DskipTests package >&2
  fi
  rdc_one() {   # rdc_one grant|revoke|version: one call's wall ms appended to rdc-<what>.txt
    local t0; t0="$(date +%s%N)"
    case "$1" in
      grant) "$RDC" repo gpu grant "repo-0@${MACHINE[after]}" --device nvidia.com/gpu=1 --wait 5s --grant-server "${GSURL[after]}" >/dev/null ;;
      revoke) "$RDC" repo gpu revoke "repo-0@${MACHINE[after]}" --device nvidia.com/gpu=1 --wait 5s --grant-server "${GSURL[after]}" >/dev/null ;;
      version) "$RDC" --version >/dev/null ;;
    esac || { log "FAILED: rdc $1"; exit 1; }
    echo $(( ($(date +%s%N) - t0) / 1000000 )) >>"$RUN_DIR/rdc-$1.txt"
  }
  rdc_one version; rdc_one grant; rdc_one revoke
  : >"$RUN_DIR/rdc-version.txt"; : >"$RUN_DIR/rdc-grant.txt"; : >"$RUN_DIR/rdc-revoke.txt"
  for _ in $(seq 1 "$RDC_OPS"); do rdc_one version; rdc_one grant; rdc_one revoke; done
fi
for side in "${SIDES[@]}"; do
  assert_no_drops "grant-service ($side)" "${GSMET[$side]}"
  assert_no_drops "gate ($side)" "${GATEMET[$side]}"
done

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
  if [ -n "${BEFORE:-}" ]; then
    echo
    echo "### before ($(git -C "$REPO_ROOT" rev-parse --short "$BEFORE")) / after ($(git -C "$REPO_ROOT" rev-parse --short "$AFTER_REF")), same rounds"
    printf '| round | before p50 ms | before p99 ms | after p50 ms | after p99 ms | p99 after/before |\n|---|---|---|---|---|---|\n'
    paste -d' ' "$RUN_DIR/rounds-before.txt" "$RUN_DIR/rounds.txt" | awk '{printf "| %s | %s | %s | %s | %s | %.2f |\n", $1, $2, $3, $7, $8, $8/$3}'
    printf '| **median** | %s | %s | %s | %s | %s |\n' \
      "$(awk '{print $2}' "$RUN_DIR/rounds-before.txt" | median)" "$(awk '{print $3}' "$RUN_DIR/rounds-before.txt" | median)" \
      "$(awk '{print $2}' "$RUN_DIR/rounds.txt" | median)" "$(awk '{print $3}' "$RUN_DIR/rounds.txt" | median)" \
      "$(paste -d' ' "$RUN_DIR/rounds-before.txt" "$RUN_DIR/rounds.txt" | awk '{printf "%.3f\n", $8/$3}' | median)"
  fi
  if [ "$RDC_OPS" -gt 0 ]; then
    echo
    echo "### rdc, wall time of the CLI (call → the machine's gate enforces it → rdc's answer), $RDC_OPS each, alternating$([ "$FLEET_MACHINES" -gt 0 ] && echo "; a fleet of $FLEET_MACHINES simulated machines besides the measured one")"
    printf '| command | p50 ms | p99 ms | min ms | max ms |\n|---|---|---|---|---|\n'
    for what in grant revoke version; do
      label="rdc repo gpu $what --wait 5s"; [ "$what" = version ] && label="rdc --version (the CLI's start alone)"
      f="$RUN_DIR/rdc-$what.txt"
      printf '| %s | %s | %s | %s | %s |\n' "$label" "$(percentile 50 <"$f")" "$(percentile 99 <"$f")" "$(sort -n "$f" | head -1)" "$(sort -n "$f" | tail -1)"
    done
  fi
  if [ "${STAGES:-0}" = 1 ]; then
    echo
    echo "### stages of grant → enforced, all rounds pooled (lib/prop-stages.py)"
    if [ -n "${BEFORE:-}" ]; then
      python3 "$BENCH_DIR/lib/prop-stages.py" "before=$RUN_DIR/enforced-before-*-stages.txt" "after=$RUN_DIR/enforced-[0-9]*-stages.txt"
    else
      python3 "$BENCH_DIR/lib/prop-stages.py" "after=$RUN_DIR/enforced-[0-9]*-stages.txt"
    fi
  fi
} | tee "$RUN_DIR/summary.md"
# issue 21's figure, machine-readable (bench/run-all.sh collects it)
figure "grant → enforced p99 vs 2 × Kafka p99 + one PostgreSQL tx, ms" "$(awk '{print $3}' "$RUN_DIR/rounds.txt" | median)" \
  "budget $(awk '{printf "%.3f\n", 2*$5+$6}' "$RUN_DIR/rounds.txt" | median) ms (Kafka p99 $(awk '{print $5}' "$RUN_DIR/rounds.txt" | median) ms, tx $(awk '{print $6}' "$RUN_DIR/rounds.txt" | median) ms)" \
  "$(awk '(2*$5+$6) > 0 {printf "%.3f\n", $3/(2*$5+$6)}' "$RUN_DIR/rounds.txt" | median)" "ratio<=1.0"
