#!/usr/bin/env bash
# Bench 1 — the gate's data plane against HAProxy pass-through, in one run, same upstream, same load.
#   upstream: nginx answering GET /_ping and POST /v1.47/containers/create like the Docker daemon
#   A: direct to nginx   B: HAProxy keep-alive to upstream   C: HAProxy option http-server-close
#   D: docker-gate, repo holding grants (TCP listener), 4 KiB create body naming a granted CDI device
# Rounds alternate B/C/D/A; medians of requests/s, p50, p99; ratios gate/HAProxy.
# Then the gate's RSS at that load and with 1,000 repos and BIG_GRANTS (1,000) grants applied from the topic.
# Env: ROUNDS (3), DURATION (8s), CONNS (32), UNIT_FLAGS (1: the gates and the floor run with the Environment= lines of
#      deploy/systemd/docker-gate.service at BENCH_REF, the JVM flags the gate ships, since 2026-12-07; 0: the JVM's
#      defaults, as every gate row before), GATE_JAVA_OPTS (extra JVM flags after those, overriding them),
#      SMALL_JAVA_OPTS (extra JVM flags of the second RSS figure, which runs with the Environment= lines of
#      deploy/systemd/docker-gate.service at BENCH_REF: the flags the unit ships), SKIP_BIG (1: no RSS-at-size part), JFR,
#      GATE_BEFORE (a commit: a second gate packaged from it, "gate-before", measured in the same rounds beside
#      the gate of BENCH_REF, for a before/after on a loaded machine; its ratios come in the same tables;
#      GATE_BEFORE_JAVA_OPTS: its own extra JVM flags, "" for none, GATE_JAVA_OPTS's when unset, so GATE_BEFORE=HEAD
#      compares two sets of flags on one commit).
#      BINDS (2): host-path binds of the create body; several ("0 1 8") measure a create endpoint each
#      (create-0, create-1, create-8), in the same rounds.
#      FLOOR (1: the data plane's floor on the gate's stack, "floor", in the same rounds: bench/floor/ProxyFloorApp.java
#      packaged with docker-gate's pom at BENCH_REF and none of its code, under GATE_JAVA_OPTS: Netty on Quarkus'
#      Vert.x event loops, a daemon connection per client connection, each body read whole, no judgement; its
#      ratios to HAProxy come in the same tables, and the gate's to it: what the stack costs and what the gate adds).
# Each round also reads the CPU time (utime+stime) of the process that answered it — the gate, HAProxy, nginx —
# and prints CPU µs per request: what each spends, which a busy machine's scheduling waits do not inflate as much
# as req/s and p99; and, from /proc, its read/write system calls (HAProxy's recv/send are not counted there), its
# threads' context switches, its kernel CPU and its minor page faults per request (RUN_DIR/syscalls.txt and a table at the end). The bench daemon's /events says every second that a container went (lib/destroy-events.py),
# so the gate's pin watcher removes the pins of the creates it answered: the gate's CPU includes unpinning.
source "$(dirname "$0")/lib/common.sh"
DURATION="${DURATION:-8s}"; CONNS="${CONNS:-32}"; BINDS="${BINDS:-2}"
GATE_JAVA_OPTS="${GATE_JAVA_OPTS:-}"
SMALL_JAVA_OPTS="${SMALL_JAVA_OPTS:-}"
# the unit's environment (JDK_JAVA_OPTIONS, MALLOC_ARENA_MAX, ...), one "NAME=value" per element
mapfile -t UNIT_ENV < <(git -C "$REPO_ROOT" show "$BENCH_REF:deploy/systemd/docker-gate.service" \
  | sed -n 's/^Environment="\{0,1\}\([A-Za-z_]*=[^"]*\)"\{0,1\}$/\1/p')
unit_env_on() { [ "${UNIT_FLAGS:-1}" = 1 ] || return 0; local kv; for kv in "${UNIT_ENV[@]}"; do export "${kv?}"; done; }
unit_env_off() { local kv; for kv in "${UNIT_ENV[@]}"; do unset "${kv%%=*}"; done; }
FLAGS_LINE="$([ "${UNIT_FLAGS:-1}" = 1 ] && echo "the unit's (${UNIT_ENV[*]})" || echo "the JVM's defaults")${GATE_JAVA_OPTS:+ + $GATE_JAVA_OPTS}"
RESULTS="$RUN_DIR/results.txt"; : >"$RESULTS"
ensure_tools; ensure_drivers
if [ -n "${GATE_BEFORE:-}" ]; then
  AFTER_REF="$BENCH_REF"; BENCH_REF="$GATE_BEFORE"; build_service docker-gate; BEFORE_JAR="$DOCKER_GATE_JAR"; BENCH_REF="$AFTER_REF"
fi
build_service docker-gate
[ "${FLOOR:-0}" != 1 ] || { build_floor docker-gate "$REPO_ROOT/bench/floor/ProxyFloorApp.java"; PROXY_FLOOR_JAR="$FLOOR_JAR"; }
log "run dir $RUN_DIR; $(machine_line); load $(load_now)"
echo "load_start $(load_now | tr ' ' ,)" >>"$RESULTS"

# --- upstream: nginx as the daemon ------------------------------------------------------------
start_nginx_daemon
NGINX_PID=$LAST_PID

# --- HAProxy: keep-alive to the upstream, and http-server-close ---------------------------------
HA_KA="$(free_port)"; HA_CLOSE="$(free_port)"
cat >"$RUN_DIR/haproxy.cfg" <<CONF
global
  maxconn 8192
defaults
  mode http
  timeout connect 5s
  timeout client 120s
  timeout server 120s
frontend keepalive
  bind 127.0.0.1:$HA_KA
  default_backend daemon_keepalive
backend daemon_keepalive
  http-reuse always
  server daemon 127.0.0.1:$NGX_PORT
frontend serverclose
  bind 127.0.0.1:$HA_CLOSE
  option http-server-close
  default_backend daemon_close
backend daemon_close
  option http-server-close
  server daemon 127.0.0.1:$NGX_PORT
CONF
start_bg haproxy haproxy -db -f "$RUN_DIR/haproxy.cfg"
HAPROXY_PID=$LAST_PID

# --- the gate: one repo holding grants, its daemon is nginx -------------------------------------
start_kafka
MACHINE=gate-bench
GUID="$(driver FleetSim guid "$MACHINE" repo-0)"
GATE_PORT="$(free_port)"
# the create body binds two host directories: they exist under the repo's hostPaths, which lie outside the
# manifest's directory (a protected path)
HOST_ROOT="$RUN_DIR/host"; mkdir -p "$HOST_ROOT/srv/datasets" "$HOST_ROOT/home/ml/project" "$RUN_DIR/gate"
cat >"$RUN_DIR/gate/repos.yaml" <<YAML
machine: $MACHINE
repos:
  - name: repo-0
    guid: $GUID
    listen: tcp://127.0.0.1:$GATE_PORT
    daemon: tcp://127.0.0.1:$NGX_PORT
    hostPaths: [$HOST_ROOT]
YAML
# repo-0 holds nvidia.com/gpu=0..7 (the snapshot grant-service would publish, signed with the grants key)
driver FleetSim grants "$KAFKA" "$MACHINE" 0 1 8 >&2
unit_env_on  # the java launcher reads JDK_JAVA_OPTIONS itself, as under systemd
# shellcheck disable=SC2086
start_gate gate "$RUN_DIR/gate/repos.yaml" "$RUN_DIR/gate-state" $GATE_JAVA_OPTS
unit_env_off
log "gates' JVM flags: $FLAGS_LINE"
wait_http "http://127.0.0.1:$GATE_MGMT/q/health/ready" 120
MAIN_GATE_PID=$GATE_PID; MAIN_GATE_METRICS=$GATE_METRICS
declare -A GATE_PIDS=([gate]=$GATE_PID)
if [ -n "${GATE_BEFORE:-}" ]; then
  # the same repo (same grants) on its own port, state and pin root, served by the gate of GATE_BEFORE
  BEFORE_PORT="$(free_port)"; mkdir -p "$RUN_DIR/gate-before"
  sed "s|listen: tcp://127.0.0.1:$GATE_PORT|listen: tcp://127.0.0.1:$BEFORE_PORT|" "$RUN_DIR/gate/repos.yaml" >"$RUN_DIR/gate-before/repos.yaml"
  AFTER_JAR="$DOCKER_GATE_JAR"; DOCKER_GATE_JAR="$BEFORE_JAR"
  unit_env_on
  # shellcheck disable=SC2086
  start_gate gate-before "$RUN_DIR/gate-before/repos.yaml" "$RUN_DIR/gate-before-state" ${GATE_BEFORE_JAVA_OPTS-$GATE_JAVA_OPTS}
  unit_env_off
  DOCKER_GATE_JAR="$AFTER_JAR"
  wait_http "http://127.0.0.1:$GATE_MGMT/q/health/ready" 120
  BEFORE_METRICS=$GATE_METRICS; GATE_PIDS[gate-before]=$GATE_PID
  GATE_PID=$MAIN_GATE_PID; GATE_METRICS=$MAIN_GATE_METRICS
fi

if [ "${FLOOR:-0}" = 1 ]; then
  FLOOR_PORT="$(free_port)"
  unit_env_on
  # shellcheck disable=SC2086
  start_bg proxy-floor java $GATE_JAVA_OPTS $(jfr_opt proxy-floor) -Dquarkus.http.port="$(free_port)" -Dkafka.bootstrap.servers="$KAFKA" \
    -Dfloor.proxy.port="$FLOOR_PORT" -Dfloor.proxy.upstream-port="$NGX_PORT" -jar "$PROXY_FLOOR_JAR"
  unit_env_off
  FLOOR_PID=$LAST_PID; JFR_PIDS+=("$FLOOR_PID")
  for i in $(seq 1 300); do grep -q "floor: proxy on" "$RUN_DIR/proxy-floor.log" && break; kill -0 "$FLOOR_PID" || break; sleep 0.2; done
  grep -q "floor: proxy on" "$RUN_DIR/proxy-floor.log" || { tail -30 "$RUN_DIR/proxy-floor.log" >&2; exit 1; }
  log "$(grep -m1 "floor: proxy on" "$RUN_DIR/proxy-floor.log")"
fi

# one create endpoint per binds count: "create" alone for one count (the figures' names), else create-<n>
read -r -a BIND_COUNTS <<<"$BINDS"
CREATES=()
for b in "${BIND_COUNTS[@]}"; do
  e=create; [ "${#BIND_COUNTS[@]}" -gt 1 ] && e="create-$b"
  CREATES+=("$e")
  python3 "$BENCH_DIR/lib/create-body.py" nvidia.com/gpu=0 4096 "$HOST_ROOT" "$b" >"$RUN_DIR/$e.json"
  cat >"$RUN_DIR/$e.lua" <<LUA
local f = io.open("$RUN_DIR/$e.json", "rb")
wrk.method = "POST"
wrk.body = f:read("*a"):gsub("%s+$", "")
f:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Docker-Client/27.5.1 (linux)"
LUA
  for port in $GATE_PORT ${BEFORE_PORT:-}; do
  for i in $(seq 1 100); do
    code="$(curl -s -o "$RUN_DIR/probe.txt" -w '%{http_code}' -H 'Content-Type: application/json' \
      --data-binary @"$RUN_DIR/$e.json" "http://127.0.0.1:$port/v1.47/containers/create?name=bench")"
    [ "$code" = 201 ] && break
    sleep 0.3
  done
  [ "$code" = 201 ] || { log "the gate on port $port does not admit the create body with $b binds ($code): $(cat "$RUN_DIR/probe.txt")"; exit 1; }
  done
  log "gate admits the 4 KiB create naming nvidia.com/gpu=0 with $b host binds ($(wc -c <"$RUN_DIR/$e.json") bytes)"
done

declare -A TARGET=([direct]=$NGX_PORT [haproxy-ka]=$HA_KA [haproxy-close]=$HA_CLOSE [gate]=$GATE_PORT)
# the process whose CPU a round of each target reads: the gates, HAProxy, nginx's worker (direct)
NGINX_WORKER="$(pgrep -P "$NGINX_PID" | head -1)"
GATE_PIDS[haproxy-ka]=$HAPROXY_PID; GATE_PIDS[haproxy-close]=$HAPROXY_PID; GATE_PIDS[direct]=$NGINX_WORKER
ORDER=(haproxy-ka haproxy-close gate direct)
if [ -n "${GATE_BEFORE:-}" ]; then TARGET[gate-before]=$BEFORE_PORT; ORDER=(haproxy-ka gate-before haproxy-close gate direct); fi
if [ "${FLOOR:-0}" = 1 ]; then TARGET[floor]=$FLOOR_PORT; GATE_PIDS[floor]=$FLOOR_PID; ORDER=(floor "${ORDER[@]}"); fi
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# read and write system calls (/proc/PID/io: read, readv, write, writev...; not epoll_wait, sendmsg) and context
# switches of all its threads: with the CPU, where a path's cost per request goes besides its own code
sys_ticks() { awk '{print $15}' "/proc/$1/stat"; }
min_faults() { awk '{print $10}' "/proc/$1/stat"; }
rw_calls() { awk '/^sysc[rw]:/ {s += $2} END {print s + 0}' "/proc/$1/io" 2>/dev/null || echo 0; }
ctx_switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches/ {s += $2} END {print s + 0}'; }
# warm-up (JIT, connection pools): not counted
for t in "${ORDER[@]}"; do
  wrk_run "warm-$t" "http://127.0.0.1:${TARGET[$t]}/_ping" 3s "$CONNS" >/dev/null
  for e in "${CREATES[@]}"; do
    wrk_run "warm-$t-$e" "http://127.0.0.1:${TARGET[$t]}/v1.47/containers/create" 3s "$CONNS" "$RUN_DIR/$e.lua" >/dev/null
  done
done

# volume_reads metrics-url: the gate's named-volume reads so far, kept answers and the daemon's
# (gate_volume_reads_total, since 2026-12-07; nothing for a gate without it)
volume_reads() {
  curl -fsS "$1" 2>/dev/null | awk '/^gate_volume_reads_total\{/ {a=$1; sub(/.*answer="/, "", a); sub(/".*/, "", a); printf "%s=%d ", a, $NF}' | sed 's/ $//'
}
RSS_MAX=0
sample_rss() { # background sampler of the gate's RSS while it is under load
  while kill -0 "$GATE_PID" 2>/dev/null; do rss_mib "$GATE_PID"; sleep 0.5; done >"$RUN_DIR/rss-$1.txt"
}
for r in $(seq 1 "$ROUNDS"); do
  for endpoint in ping "${CREATES[@]}"; do
    for t in "${ORDER[@]}"; do
      if [ "$endpoint" = ping ]; then url="http://127.0.0.1:${TARGET[$t]}/_ping"; lua=""
      else url="http://127.0.0.1:${TARGET[$t]}/v1.47/containers/create"; lua="$RUN_DIR/$endpoint.lua"; fi
      sampler=""; cpu0=""; cpu_us=-; per_req=""
      if [ "$t" = gate ]; then sample_rss "$r-$endpoint" & sampler=$!; fi
      [ -n "${GATE_PIDS[$t]:-}" ] && { cpu0="$(cpu_ticks "${GATE_PIDS[$t]}")"; sys0="$(sys_ticks "${GATE_PIDS[$t]}")"; mf0="$(min_faults "${GATE_PIDS[$t]}")"; rw0="$(rw_calls "${GATE_PIDS[$t]}")"; cs0="$(ctx_switches "${GATE_PIDS[$t]}")"; }
      read -r rps p50 p99 bad < <(wrk_run "$r-$endpoint-$t" "$url" "$DURATION" "$CONNS" "$lua")
      if [ -n "$cpu0" ]; then # the CPU µs per request answered in the round of the process that answered it
        cpu_us="$(awk -v a="$cpu0" -v b="$(cpu_ticks "${GATE_PIDS[$t]}")" -v hz="$(getconf CLK_TCK)" \
          '/ requests in / {n=$1} END {printf "%.1f", (n > 0 ? (b - a) / hz * 1e6 / n : -1)}' "$RUN_DIR/wrk-$r-$endpoint-$t.txt")"
        per_req="$(awk -v rw="$(( $(rw_calls "${GATE_PIDS[$t]}") - rw0 ))" -v cs="$(( $(ctx_switches "${GATE_PIDS[$t]}") - cs0 ))" \
          -v sys="$(( $(sys_ticks "${GATE_PIDS[$t]}") - sys0 ))" -v hz="$(getconf CLK_TCK)" -v mf="$(( $(min_faults "${GATE_PIDS[$t]}") - mf0 ))" \
          '/ requests in / {n=$1} END {if (n > 0) printf "%.2f %.2f %.1f %.3f", rw / n, cs / n, sys / hz * 1e6 / n, mf / n}' "$RUN_DIR/wrk-$r-$endpoint-$t.txt")"
      fi
      [ -n "$sampler" ] && { kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; }
      [ "$bad" = 0 ] || log "WARNING: $t $endpoint had $bad non-2xx answers (see $RUN_DIR/wrk-$r-$endpoint-$t.txt)"
      echo "$r $endpoint $t $rps $p50 $p99 $bad $cpu_us" >>"$RUN_DIR/rounds.txt"
      [ -n "$per_req" ] && echo "$r $endpoint $t $per_req" >>"$RUN_DIR/syscalls.txt"
      reads=""
      case "$t" in gate) reads="$(volume_reads "$MAIN_GATE_METRICS")" ;; gate-before) reads="$(volume_reads "$BEFORE_METRICS")" ;; esac
      log "round $r $endpoint $t: $rps req/s p50 ${p50}ms p99 ${p99}ms CPU ${cpu_us} µs/req${per_req:+, read/write calls, context switches, kernel CPU µs and page faults per req $per_req}${reads:+; volume reads so far $reads} (load $(load_now))"
    done
  done
done
RSS_LOAD="$(cat "$RUN_DIR"/rss-*.txt | sort -g | tail -1)"
assert_no_drops gate "$GATE_METRICS"
[ -n "${GATE_BEFORE:-}" ] && { assert_no_drops gate-before "$BEFORE_METRICS"; stop_pid "${GATE_PIDS[gate-before]}"; }
[ "${FLOOR:-0}" != 1 ] || stop_pid "$FLOOR_PID"

# --- the gate's RSS with 1,000 repos and BIG_GRANTS grants ------------------------------------------
# The grants arrive as they do in production: one snapshot signed with the grants key on gpu.grants.v1, which the
# gate reads at start. BIG_GRANTS defaults to 1,000, the most grant-service lets one machine hold
# (grants.max-grants-per-machine) — a snapshot must also fit a 1 MiB Kafka record (docs/EVENTS.md). Before
# 2026-12-02 this part wrote an unsigned 100,000-grant file into the gate's state directory instead: the gate
# loaded it, found at its first sync that the topic held no such snapshot, logged TAMPERING and dropped it, so
# the figure was a gate holding no grants after a 100,000-grant start-up.
BIG_GRANTS="${BIG_GRANTS:-1000}"
big_gate() { # big_gate label java-opts...
  local label="$1"; shift
  local dir="$RUN_DIR/big-$label" m="gate-big-$label"; mkdir -p "$dir/state"
  python3 - "$dir" "$NGX_PORT" "$m" <<'PY'
import hashlib, sys, uuid
d, ngx, m = sys.argv[1], sys.argv[2], sys.argv[3]
def guid(repo):  # Bench.guid: Java's UUID.nameUUIDFromBytes("repo:MACHINE/REPO")
    return str(uuid.UUID(bytes=hashlib.md5(("repo:%s/%s" % (m, repo)).encode()).digest(), version=3))
repos = ["  - name: repo-%d\n    guid: %s\n    listen: tcp://127.0.0.1:0\n    daemon: tcp://127.0.0.1:%s\n" % (r, guid("repo-%d" % r), ngx)
         for r in range(1000)]
open(d + "/repos.yaml", "w").write("machine: %s\nrepos:\n%s" % (m, "".join(repos)))
PY
  # repo-0..: gpu=0..7 each, BIG_GRANTS in all (FleetSim grants), signed as grant-service's relay signs them
  driver FleetSim grants "$KAFKA" "$m" 0 1 "$BIG_GRANTS" >&2
  start_gate "big-$label" "$dir/repos.yaml" "$dir/state" "$@"
  local pid=$GATE_PID
  wait_http "http://127.0.0.1:$GATE_MGMT/q/health/ready" 180
  local i; for i in $(seq 1 600); do grep -q "serves 1000 repo" "$RUN_DIR/big-$label.log" && break; sleep 0.2; done
  for i in $(seq 1 600); do grep -q "grants of $m are in sync at version [1-9]" "$RUN_DIR/big-$label.log" && break; sleep 0.2; done
  if ! grep -q "grants of $m are in sync at version [1-9]" "$RUN_DIR/big-$label.log" || grep -q TAMPERING "$RUN_DIR/big-$label.log"; then
    log "the big gate ($label) did not apply the $BIG_GRANTS-grant snapshot: see $RUN_DIR/big-$label.log"; return 1
  fi
  sleep 5
  local idle; idle="$(rss_mib "$pid")"
  # a short load on one of the 1,000 repos, through a listener the gate opened (port 0: read it from ss)
  local port; port="$(ss -ltnpH 2>/dev/null | awk -v p="pid=$pid," '$0 ~ p {split($4,a,":"); print a[length(a)]}' | grep -v "^$GATE_MGMT\$" | head -1 || true)"
  local loaded="$idle"
  if [ -n "$port" ]; then
    ( while kill -0 "$pid" 2>/dev/null; do rss_mib "$pid"; sleep 0.5; done >"$dir/rss.txt" ) & local s=$!
    wrk_run "big-$label" "http://127.0.0.1:$port/_ping" "$DURATION" "$CONNS" >/dev/null
    kill "$s" 2>/dev/null || true; wait "$s" 2>/dev/null || true
    loaded="$(sort -g "$dir/rss.txt" | tail -1)"
  fi
  echo "$idle $loaded $(ls -l "$dir/state/grants-$m.json" | awk '{printf "%.1f", $5/1048576}')" >"$dir/result.txt"
  assert_no_drops "gate (big-$label)" "$GATE_METRICS"
  stop_pid "$pid"
}
stop_pid "$GATE_PID"
if [ "${SKIP_BIG:-0}" = 1 ]; then BIG_IDLE=-; BIG_LOAD=-; SNAP_MIB=-; SMALL_IDLE=-; SMALL_LOAD=-; else
# shellcheck disable=SC2086
big_gate default $GATE_JAVA_OPTS; read -r BIG_IDLE BIG_LOAD SNAP_MIB <"$RUN_DIR/big-default/result.txt"
for kv in "${UNIT_ENV[@]}"; do export "${kv?}"; done  # the java launcher reads JDK_JAVA_OPTIONS itself, as under systemd
# shellcheck disable=SC2086
big_gate small $SMALL_JAVA_OPTS; read -r SMALL_IDLE SMALL_LOAD _ <"$RUN_DIR/big-small/result.txt"
for kv in "${UNIT_ENV[@]}"; do unset "${kv%%=*}"; done
fi

# --- report -------------------------------------------------------------------------------------
med() { awk -v e="$1" -v t="$2" -v c="$3" '$2==e && $3==t {print $c}' "$RUN_DIR/rounds.txt" | median; }
# ratios per round, then the median of the same-round ratios: rr endpoint column base
rr() { awk -v e="$1" -v col="$2" -v base="$3" -v g="${4:-gate}" '$2==e && $3==g {x[$1]=$col} $2==e && $3==base {b[$1]=$col} END {for (r in x) if (b[r]>0) printf "%.3f\n", x[r]/b[r]}' "$RUN_DIR/rounds.txt" | median; }
GATES=(gate); [ -n "${GATE_BEFORE:-}" ] && GATES=(gate-before gate)
[ "${FLOOR:-0}" != 1 ] || GATES=(floor "${GATES[@]}")
gname() { case "$1" in gate-before) echo "gate-before ($GATE_BEFORE)" ;; floor) echo "floor (the stack's pass-through)" ;; *) echo "gate ($BENCH_REF)" ;; esac; }
{
  echo "## gate data plane  ($(date -u +'%Y-%m-%d %H:%M UTC'); $(machine_line); load at end $(load_now); rounds $ROUNDS x $DURATION, $CONNS connections, wrk -t2; JVM flags: $FLAGS_LINE)"
  printf '| endpoint | path | req/s (median) | p50 ms | p99 ms | CPU µs/req (gate, HAProxy, or nginx for direct) |\n|---|---|---|---|---|---|\n'
  for e in ping "${CREATES[@]}"; do for t in direct haproxy-ka haproxy-close "${GATES[@]}"; do
    printf '| %s | %s | %s | %s | %s | %s |\n' "$e" "$t" "$(med $e $t 4)" "$(med $e $t 5)" "$(med $e $t 6)" "$(med $e $t 8)"
  done; done
  echo
  printf '| endpoint | gate | gate/HAProxy-keepalive req/s | gate/HAProxy-close req/s | p99 gate/keepalive | p99 gate/close | CPU per request gate/HAProxy-keepalive |\n|---|---|---|---|---|---|---|\n'
  for e in ping "${CREATES[@]}"; do for g in "${GATES[@]}"; do
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$e" "$(gname "$g")" "$(rr $e 4 haproxy-ka "$g")" "$(rr $e 4 haproxy-close "$g")" "$(rr $e 6 haproxy-ka "$g")" "$(rr $e 6 haproxy-close "$g")" "$(rr $e 8 haproxy-ka "$g")"
  done; done
  echo
  if [ "${FLOOR:-0}" = 1 ]; then
    printf '\n| endpoint | gate/floor req/s | p99 gate/floor | CPU per request gate/floor |\n|---|---|---|---|\n'
    for e in ping "${CREATES[@]}"; do
      printf '| %s | %s | %s | %s |\n' "$e" "$(rr $e 4 floor gate)" "$(rr $e 6 floor gate)" "$(rr $e 8 floor gate)"
    done
    echo
  fi
  echo "targets: gate req/s >= 1.0x HAProxy, gate p99 <= 1.5x HAProxy"
  echo "gate RSS at load (max sampled, JVM flags: $FLAGS_LINE): $RSS_LOAD MiB"
  echo "gate RSS with 1,000 repos + $BIG_GRANTS grants (snapshot $SNAP_MIB MiB on disk), JVM defaults: idle $BIG_IDLE MiB, under load $BIG_LOAD MiB"
  echo "  same, with the unit's environment (${UNIT_ENV[*]}) ${SMALL_JAVA_OPTS}: idle $SMALL_IDLE MiB, under load $SMALL_LOAD MiB   (target <= 128 MiB)"
} | tee "$RUN_DIR/summary.md"
echo "rounds: $RUN_DIR/rounds.txt" >&2
if [ -s "$RUN_DIR/syscalls.txt" ]; then
  echo
  echo "| endpoint | path | read/write system calls per request | context switches per request | kernel CPU µs per request (of the CPU above) | minor page faults per request |"
  echo "|---|---|---|---|---|---|"
  python3 - "$RUN_DIR/syscalls.txt" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    _, endpoint, path, rw, cs, sys_us, faults = line.split()
    rows.setdefault((endpoint, path), []).append((float(rw), float(cs), float(sys_us), float(faults)))
for (endpoint, path), v in rows.items():
    print(f"| {endpoint} | {path} | {statistics.median(x[0] for x in v):.2f} | {statistics.median(x[1] for x in v):.2f}"
          f" | {statistics.median(x[2] for x in v):.1f} | {statistics.median(x[3] for x in v):.3f} |")
PY
fi
# issue 21's figures, machine-readable (bench/run-all.sh collects them)
for e in "${CREATES[@]}"; do
  n=""; [ "$e" != create ] && n=" (${e#create-} host binds)"
  figure "gate POST /containers/create 4 KiB$n vs HAProxy keep-alive, req/s" "$(med "$e" gate 4)" \
    "HAProxy keep-alive $(med "$e" haproxy-ka 4) req/s" "$(rr "$e" 4 haproxy-ka)" "ratio>=1.0"
  figure "gate create$n vs HAProxy http-server-close, req/s" "$(med "$e" gate 4)" \
    "HAProxy http-server-close $(med "$e" haproxy-close 4) req/s" "$(rr "$e" 4 haproxy-close)" "ratio>=1.5"
  figure "gate create$n p99 vs HAProxy keep-alive p99, ms" "$(med "$e" gate 6)" \
    "HAProxy keep-alive p99 $(med "$e" haproxy-ka 6) ms" "$(rr "$e" 6 haproxy-ka)" "ratio<=1.5"
done
figure "gate /_ping vs HAProxy keep-alive, req/s" "$(med ping gate 4)" \
  "HAProxy keep-alive $(med ping haproxy-ka 4) req/s" "$(rr ping 4 haproxy-ka)" "ratio>=1.0"
figure "gate RSS, 1,000 repos + $BIG_GRANTS grants, shipped unit flags, MiB (idle / under load: the larger)" \
  "$(awk -v a="$SMALL_IDLE" -v b="$SMALL_LOAD" 'BEGIN { if (a == "-" || b == "-") print "-"; else print (b+0 > a+0 ? b : a) }')" \
  "JVM defaults: $BIG_IDLE / $BIG_LOAD MiB" - "value<=128"
