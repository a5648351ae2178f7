#!/usr/bin/env bash
# rdc start-up: wall time of `rdc --version` and `rdc machine list` (median of RUNS, default 10)
# next to `curl` of the same endpoint (GET /api/v1/machines?page=0&size=500, what machine list
# asks), so the figure is rdc's own cost over the HTTP round trip. Also user+sys CPU time, which
# moves less than wall time on a shared machine. The commands run round-robin (bench/lib/alternate.py:
# one warm-up each, then RUNS rounds of all of them), so a load change hits every figure alike.
#
#   bench/rdc-startup.sh                       # the build's cli/rdc against a stand-in endpoint
#   RDC=/usr/bin/rdc bench/rdc-startup.sh      # the installed package
#   source .fleet/fleet.env && bench/rdc-startup.sh   # against the real inventory-service of ./fleet up
#   RDC_BASELINE=/tmp/main/cli/rdc RUNS=20 bench/rdc-startup.sh   # A/B: another build's rdc in the same rounds
#
# Without RDC_INVENTORY_URL it serves cli's recorded inventory-service machines (the items of
# cli/src/test/resources/recorded/inventory-service/machines-page-0.json as one complete page)
# from python3's http.server on 127.0.0.1: rdc and curl then fetch the same bytes from the same
# server, one request each.
# Target (issue 17): rdc machine list <= 0.3 s wall, median of 10, on the 2-core CI machine.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10}
RDC=${RDC:-cli/rdc}
if [ "$RDC" = cli/rdc ] && [ ! -f cli/target/rdc.jar ]; then
  echo "building cli (mvn -B -q -pl cli -am -DskipTests package)" >&2
  mvn -B -q -pl cli -am -DskipTests package >&2
fi

server_pid=
dir=
cleanup() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; [ -z "$dir" ] || rm -rf "$dir"; }
trap cleanup EXIT
if [ -z "${RDC_INVENTORY_URL:-}" ]; then
  dir=$(mktemp -d)
  mkdir -p "$dir/api/v1"
  python3 - cli/src/test/resources/recorded/inventory-service/machines-page-0.json "$dir/api/v1/machines" <<'PY'
import json, sys
page = json.load(open(sys.argv[1]))
json.dump({"items": page["items"], "page": 0, "size": 500, "total": len(page["items"])}, open(sys.argv[2], "w"))
PY
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dir" >/dev/null 2>&1 &
  server_pid=$!
  RDC_INVENTORY_URL=http://127.0.0.1:$port
  for _ in $(seq 50); do curl -sf -o /dev/null "$RDC_INVENTORY_URL/api/v1/machines" && break; sleep 0.1; done
  endpoint="stand-in (python3 http.server, recorded answer)"
else
  endpoint="$RDC_INVENTORY_URL"
fi
export RDC_INVENTORY_URL
auth=()
[ -z "${RDC_TOKEN:-}" ] || auth=(-H "Authorization: Bearer $RDC_TOKEN")

# commands to measure: label, then the command as one shell-quoted string
commands=()
add() { local label=$1; shift; commands+=("$label" "$(printf '%q ' "$@")"); }

echo "rdc start-up, median of $RUNS; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(java -version 2>&1 | head -1)"
echo "rdc: $RDC${RDC_BASELINE:+; baseline: $RDC_BASELINE}; endpoint: $endpoint"
# the launcher's class-data sharing archive: -Xshare:on makes the JVM refuse to start without it,
# so this says whether the figures below are with the archive (an archive of another Java build or
# jar path is ignored silently by the launcher's -Xshare:auto)
for rdc in "$RDC" ${RDC_BASELINE:+"$RDC_BASELINE"}; do
  if RDC_JAVA_OPTS=-Xshare:on "$rdc" --version >/dev/null 2>&1; then
    echo "CDS archive of $rdc: used"
  else
    echo "CDS archive of $rdc: NOT usable here (rebuild it: RDC_CDS_DUMP=<jar dir>/rdc.jsa $rdc); figures are without it"
  fi
done
add "java -version" java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -version
add "curl machines" curl -sf "${auth[@]}" "$RDC_INVENTORY_URL/api/v1/machines?page=0&size=500"
add "rdc --version" "$RDC" --version
add "rdc machine list" "$RDC" machine list
add "rdc machine list -o json" "$RDC" machine list -o json
if [ -n "${RDC_BASELINE:-}" ]; then
  add "baseline rdc --version" "$RDC_BASELINE" --version
  add "baseline rdc machine list" "$RDC_BASELINE" machine list
  add "baseline rdc machine list -o json" "$RDC_BASELINE" machine list -o json
fi
python3 bench/lib/alternate.py "$RUNS" "${commands[@]}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
