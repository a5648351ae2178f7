#!/usr/bin/env bash
# Runs rdc against the real grant-service and inventory-service, with a real Kafka broker
# (test-support's embedded one) and the local PostgreSQL; machines and their gate are simulated
# by Fleet.java. Prints the session, then stops everything it started.
#   prerequisites: mvn -B install -DskipTests at the root (services, cli, test-support built)
#   usage: cli/e2e/session.sh [rdc arguments...]   (without arguments: the README session)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-rediacc} PGPASSWORD=${PGPASSWORD:-rediacc}
grant_port=${GRANT_PORT:-18081} inventory_port=${INVENTORY_PORT:-18082}
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for db in e2e_grants e2e_inventory; do psql -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

mvn -B -q -f "$root/test-support/pom.xml" dependency:build-classpath -Dmdep.outputFile="$work/cp" -Dmdep.includeScope=runtime >/dev/null
cp="$(cat "$work/cp"):$root/test-support/target/classes:$root/contracts/target/classes"
java -cp "$cp" "$root/cli/e2e/Fleet.java" "$work/bootstrap" > "$work/fleet.log" 2>&1 & pids+=($!)
for _ in $(seq 1 60); do [ -s "$work/bootstrap" ] && break; sleep 1; done
bootstrap=$(cat "$work/bootstrap")

for db in e2e_grants e2e_inventory; do
  psql -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" 2>/dev/null
done
java -Dquarkus.http.port=$grant_port -Dkafka.bootstrap.servers="$bootstrap" \
  -Dquarkus.datasource.reactive.url=postgresql://$PGHOST:$PGPORT/e2e_grants \
  -Dquarkus.datasource.username="$PGUSER" -Dquarkus.datasource.password="$PGPASSWORD" \
  -jar "$root/grant-service/target/quarkus-app/quarkus-run.jar" > "$work/grant-service.log" 2>&1 & pids+=($!)
java -Dquarkus.http.port=$inventory_port -DKAFKA_BOOTSTRAP_SERVERS="$bootstrap" \
  -DINVENTORY_DB_URL=postgresql://$PGHOST:$PGPORT/e2e_inventory \
  -DINVENTORY_DB_USER="$PGUSER" -DINVENTORY_DB_PASSWORD="$PGPASSWORD" \
  -jar "$root/inventory-service/target/quarkus-app/quarkus-run.jar" > "$work/inventory-service.log" 2>&1 & pids+=($!)
for port in $grant_port $inventory_port; do
  for _ in $(seq 1 90); do curl -sf "http://localhost:$port/q/health/ready" >/dev/null && break; sleep 1; done
done
# both machines' inventories have reached inventory-service
for _ in $(seq 1 30); do
  [ "$(curl -s "http://localhost:$inventory_port/api/v1/machines" | grep -o '"machine"' | wc -l)" -ge 2 ] && break; sleep 1
done

export RDC_GRANT_URL=http://localhost:$grant_port RDC_INVENTORY_URL=http://localhost:$inventory_port RDC_CONFIG=/dev/null
rdc() { echo "\$ rdc $*"; "$root/cli/rdc" "$@" && echo "[exit 0]" || echo "[exit $?]"; }
if [ $# -gt 0 ]; then rdc "$@"; exit 0; fi
rdc machine list
rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0 --exclusive
rdc repo gpu grant infer-b@gpu-host-1 --device nvidia.com/gpu=0
rdc repo gpu grant infer-b --device nvidia.com/gpu=all --device nvidia.com/gpu=1 --device nvidia.com/gpu=7
rdc repo gpu grant eval-c@gpu-host-1 --device nvidia.com/gpu
rdc machine gpu list gpu-host-1
rdc repo gpu revoke infer-b@gpu-host-1 --device nvidia.com/gpu=1
rdc repo gpu list infer-b@gpu-host-1
rdc repo gpu grant gpu-a@wsl-gpu --device nvidia.com/gpu=all
rdc machine gpu list wsl-gpu
rdc machine gpu list wsl-gpu -o json
rdc machine gpu list nope
