#!/usr/bin/env bash
# kafka-bystanders.sh — is the Kafka leg of a grant slower than grant-propagation.sh's anchor because the record wakes
# several consumers at once (the gate's, inventory-service's, grant-service's, the bench's bystander)? The anchor
# (KafkaLatency, 184-byte values: a one-grant snapshot) alone and with 3 more consumers of its partition, each polling
# on its own thread, alternating for ROUNDS (5) rounds of N (300) records on one broker.
source "$(dirname "$0")/common.sh"
ROUNDS="${ROUNDS:-5}"; N="${N:-300}"
ensure_drivers
start_kafka
for r in $(seq 1 "$ROUNDS"); do
  for b in 0 3; do
    driver KafkaLatency "$KAFKA" "$N" 184 "$b" >"$RUN_DIR/kafka-$r-$b.txt" 2>&1
    echo "round $r bystanders $b $(awk '$1=="p50_ms" {p=$2} $1=="p99_ms" {q=$2} END {print "p50_ms", p, "p99_ms", q}' "$RUN_DIR/kafka-$r-$b.txt"); load $(load_now)"
  done
done
