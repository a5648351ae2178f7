# Shared helpers of the benchmarks: tools, builds of the committed services, a real Kafka broker,
# a fresh PostgreSQL database, medians. Sourced by bench/*.sh; everything it starts is stopped on exit.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "$BENCH_DIR/.." && pwd)"
WORK="$BENCH_DIR/.work"
RUN_ID="$(date -u +%Y%m%d%H%M%S)-$$"
RUN_DIR="$WORK/runs/$RUN_ID"
mkdir -p "$RUN_DIR"
ROUNDS="${ROUNDS:-3}"
PGHOST="${PGHOST:-127.0.0.1}"; PGPORT="${PGPORT:-5432}"; PGUSER="${PGUSER:-rediacc}"; PGPASSWORD="${PGPASSWORD:-rediacc}"
export PGHOST PGPORT PGUSER PGPASSWORD
BENCH_PIDS=()
# Signed records (docs/SECURITY.md, "Signed records"): the simulated machines' keys are derived from this
# per-run seed (bench/java/BenchKeys.java), so every driver of the run signs with the keys the run registered;
# BENCH_GRANTS_KEY is the pair grant-service (or FleetSim in its place) signs grant snapshots with, its .pub
# what the gates and inventory-service are given.
BENCH_KEY_SEED="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
BENCH_GRANTS_KEY="$RUN_DIR/grant-service-key.pem"
BENCH_GRANTS_PUB="$RUN_DIR/grant-service-key.pub"
export BENCH_KEY_SEED BENCH_GRANTS_KEY

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# JFR=1: the services run with a JFR recording (settings=profile), dumped into the run dir at exit.
JFR_PIDS=()
jfr_opt() { # jfr_opt name : the JVM option, or nothing
  [ "${JFR:-0}" = 1 ] && echo "-XX:StartFlightRecording=name=bench,settings=profile,filename=$RUN_DIR/$1.jfr" || true
}
jfr_dump() {
  local pid
  for pid in "${JFR_PIDS[@]:-}"; do
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && jcmd "$pid" JFR.dump name=bench >/dev/null 2>&1 || true
  done
}

cleanup() {
  jfr_dump
  local pid
  for pid in "${BENCH_PIDS[@]:-}"; do
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  sleep 1
  for pid in "${BENCH_PIDS[@]:-}"; do
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  # the pins the gates left under the run dir (start_gate's pin roots; pins outlive a gate by design)
  # only the outermost mount points: a lazy unmount detaches a point with everything mounted beneath it (one by one,
  # each umount rereading a table of 20,000 pins, took minutes, and an interrupted cleanup left them all mounted)
  awk -v d="$RUN_DIR/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo 2>/dev/null | sort \
    | awk 'top == "" || index($0, top "/") != 1 {top = $0; print}' \
    | while read -r point; do umount -l "$point" 2>/dev/null || true; done
  # every database create_db made in this run (it runs in $(...), a subshell: it lists them in a file, not an array)
  local db
  while read -r db; do
    [ -n "$db" ] && psql -q -d postgres -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  done < <(cat "$RUN_DIR/.bench-dbs" 2>/dev/null)
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Installs the load tools from Debian's packages when they are missing (idempotent).
ensure_tools() {
  local missing=()
  command -v wrk >/dev/null || missing+=(wrk)
  command -v haproxy >/dev/null || missing+=(haproxy)
  [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
  command -v pgbench >/dev/null || missing+=(postgresql-contrib)
  command -v psql >/dev/null || missing+=(postgresql-client)
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get install -y -q "${missing[@]}" >"$WORK/apt.log" 2>&1 \
      || { $sudo apt-get update -q >>"$WORK/apt.log" 2>&1 && $sudo apt-get install -y -q "${missing[@]}" >>"$WORK/apt.log" 2>&1; }
  fi
}

# The drivers' class path: the project's contracts (event records, topics, signing) built from the bench's own
# commit (DRIVERS_REF, default HEAD) in bench/.work/build, never an io.rediacc.gpu artifact from ~/.m2 — so a fresh
# clone needs no `mvn install` — with the contracts' runtime dependencies, and bench/pom.xml's third-party jars
# (the Kafka broker, the PostgreSQL driver, log4j). Then the compiled drivers (bench/java/*.java).
DRIVERS_REF="${DRIVERS_REF:-HEAD}"
ensure_drivers() {
  local commit key dir
  commit="$(git -C "$REPO_ROOT" rev-parse "$DRIVERS_REF^{commit}")"
  key="$(git -C "$REPO_ROOT" ls-tree "$commit" -- pom.xml contracts | md5sum | cut -c1-12)"
  dir="$WORK/build/drivers-contracts-$key"
  if [ ! -s "$dir/cp.txt" ]; then
    log "building contracts for the drivers (commit ${commit:0:12})"
    rm -rf "$dir"; mkdir -p "$dir/src"
    git -C "$REPO_ROOT" archive "$commit" | tar -x -C "$dir/src"
    local mvn_args=(-B -q -f "$dir/src/pom.xml" -pl contracts -Dmaven.test.skip=true package dependency:build-classpath
      -Dmdep.includeScope=runtime -Dmdep.outputFile="$dir/deps.txt")
    mvn -o "${mvn_args[@]}" >"$dir/build.log" 2>&1 || mvn "${mvn_args[@]}" >"$dir/build.log" 2>&1 \
      || { tail -40 "$dir/build.log" >&2; return 1; }
    local jar; jar="$(ls "$dir"/src/contracts/target/contracts-*.jar | grep -v -e -sources -e -tests | head -1)"
    echo "$jar:$(cat "$dir/deps.txt")" >"$dir/cp.txt"
  fi
  local stamp
  stamp="$(cat "$BENCH_DIR/pom.xml" "$REPO_ROOT/pom.xml" | md5sum | cut -c1-12)"
  if [ ! -s "$WORK/cp-$stamp.txt" ]; then
    log "resolving the drivers' third-party class path (bench/pom.xml)"
    mvn -B -q -f "$BENCH_DIR/pom.xml" dependency:build-classpath -Dmdep.outputFile="$WORK/cp-$stamp.tmp" >"$WORK/mvn-cp.log" 2>&1 \
      || { tail -40 "$WORK/mvn-cp.log" >&2; return 1; }
    mv "$WORK/cp-$stamp.tmp" "$WORK/cp-$stamp.txt"
  fi
  CP="$(cat "$dir/cp.txt"):$(cat "$WORK/cp-$stamp.txt")"
  if grep -q 'io/rediacc/gpu' <<<"$(cat "$WORK/cp-$stamp.txt")"; then
    log "bench/pom.xml must name third-party artifacts only; its class path has io.rediacc.gpu jars from the local repository"
    return 1
  fi
  local src
  src="$( (cat "$BENCH_DIR"/java/*.java; echo "$CP") | md5sum | cut -c1-12)"
  if [ ! -f "$WORK/classes-$src/.ok" ]; then
    log "compiling the drivers"
    mkdir -p "$WORK/classes-$src"
    javac -nowarn -d "$WORK/classes-$src" -cp "$CP" "$BENCH_DIR"/java/*.java
    touch "$WORK/classes-$src/.ok"
  fi
  DRIVER_CP="$WORK/classes-$src:$CP"
  [ -s "$BENCH_GRANTS_KEY" ] || driver FleetSim keypair "$BENCH_GRANTS_KEY"
}

driver() { # driver <MainClass> args... (never with a service's JDK_JAVA_OPTIONS, which gate-dataplane.sh exports)
  env -u JDK_JAVA_OPTIONS java -Xmx1g -XX:+UseParallelGC -Dlog4j2.level=WARN -cp "$DRIVER_CP" "$@"
}

# Packages a service from the COMMITTED tree (git archive of BENCH_REF, default HEAD) in bench/.work, with the
# modules it depends on built from the same commit, so the benchmark measures exactly that commit and never
# touches the module's own target/ while its owner builds there. BENCH_REF=<commit> measures an older commit
# (a before/after comparison runs the same script twice). Sets <MODULE>_JAR (e.g. DOCKER_GATE_JAR).
BENCH_REF="${BENCH_REF:-HEAD}"
build_service() {
  local module="$1" commit var
  commit="$(git -C "$REPO_ROOT" rev-parse "$BENCH_REF^{commit}")"
  var="$(echo "$module" | tr 'a-z-' 'A-Z_')_JAR"
  # keyed by the commit's code (every top-level entry but docs, benches, deployment files and scripts), so a
  # commit that changes only those reuses the build
  local key
  key="$(git -C "$REPO_ROOT" ls-tree "$commit" | grep -v -P '\t(docs|bench|deploy|fixtures|fleet|README\.md|docker-compose\.yml|\.ci|\.gitignore)$' | md5sum | cut -c1-12)"
  local dir="$WORK/build/$module-$key"
  if [ ! -f "$dir/$module/target/quarkus-app/quarkus-run.jar" ]; then
    log "packaging $module (commit ${commit:0:12})"
    rm -rf "$dir"; mkdir -p "$dir"
    git -C "$REPO_ROOT" archive "$commit" | tar -x -C "$dir"
    mvn -B -q -o -DskipTests -f "$dir/pom.xml" -pl "$module" -am package >"$dir/build.log" 2>&1 \
      || mvn -B -q -DskipTests -f "$dir/pom.xml" -pl "$module" -am package >"$dir/build.log" 2>&1 \
      || { tail -40 "$dir/build.log" >&2; return 1; }
  fi
  printf -v "$var" '%s' "$dir/$module/target/quarkus-app/quarkus-run.jar"
  log "$module: ${!var} (${BENCH_REF})"
}

# build_floor module app.java [artifactId...] : a memory floor app (bench/floor/) packaged as a module "<module>-floor"
# with the module's own pom (its extensions and libraries at BENCH_REF; the artifactIds named are left out of it),
# the module's quarkus.* settings, and none of its code. Sets FLOOR_JAR. gate-memory.sh FLOOR=1 and
# inventory-memory.sh measure what such an app takes: the service cannot take less.
build_floor() {
  local module="$1" src="$2" floor="$1-floor" commit key dir drop; shift 2
  commit="$(git -C "$REPO_ROOT" rev-parse "$BENCH_REF^{commit}")"
  key="$( (git -C "$REPO_ROOT" ls-tree "$commit" "$module/pom.xml" pom.xml; cat "$src"; echo "$*") | md5sum | cut -c1-12)"
  dir="$WORK/build/$floor-$key"
  if [ ! -f "$dir/$floor/target/quarkus-app/quarkus-run.jar" ]; then
    log "packaging $module's floor app ($(basename "$src"), $module's pom at ${commit:0:12}${*:+ without $*})"
    rm -rf "$dir"; mkdir -p "$dir/$floor/src/main/java/io/rediacc/gpu/floor" "$dir/$floor/src/main/resources"
    git -C "$REPO_ROOT" archive "$commit" | tar -x -C "$dir"
    sed "0,/<artifactId>$module<\/artifactId>/s//<artifactId>$floor<\/artifactId>/" "$dir/$module/pom.xml" >"$dir/$floor/pom.xml"
    for drop in "$@"; do # the <dependency> block naming that artifactId
      perl -0pi -e "s{\\s*<dependency>(?:(?!</dependency>).)*?<artifactId>\\Q$drop\\E</artifactId>.*?</dependency>}{}s" "$dir/$floor/pom.xml"
      ! grep -q "<artifactId>$drop</artifactId>" "$dir/$floor/pom.xml" || { log "could not leave $drop out of the floor's pom"; return 1; }
    done
    sed -i "s|<module>$module</module>|<module>$module</module><module>$floor</module>|" "$dir/pom.xml"
    cp "$src" "$dir/$floor/src/main/java/io/rediacc/gpu/floor/"
    { grep '^quarkus\.' "$dir/$module/src/main/resources/application.properties"; echo "quarkus.application.name=$floor"; } \
      >"$dir/$floor/src/main/resources/application.properties"
    mvn -B -q -o -DskipTests -f "$dir/pom.xml" -pl "$floor" -am package >"$dir/build.log" 2>&1 \
      || { tail -40 "$dir/build.log" >&2; return 1; }
  fi
  FLOOR_JAR="$dir/$floor/target/quarkus-app/quarkus-run.jar"
}

# Whether BENCH_REF's services verify signed records (commits before contracts' signing do not: no keys to
# register, no signing-key settings to give them).
signed_ref() { git -C "$REPO_ROOT" cat-file -e "$BENCH_REF:contracts/src/main/java/io/rediacc/gpu/contracts/signing/RecordSigner.java" 2>/dev/null; }

# register_keys url token pattern from to : registers the simulated machines' keys as rdc machine setup does
# (PUT /api/v1/machines/{m}/key, operator token or "-"), 32 at once; logged with its time, never inside a
# measured window.
register_keys() {
  signed_ref || return 0
  local out; out="$(driver FleetSim register "$@")" || { log "key registration failed"; return 1; }
  log "$out"
  echo "$out" >>"$RUN_DIR/key-registration.txt"
}

# assert_no_drops what metrics-url : fails the bench loudly when the service dropped any input record (unsigned,
# unregistered machine, bad signature...): a bench that measures dropped records measures nothing.
# Counters: grants_input_dropped_total, inventory_input_dropped_total, gate_grants_dropped_total.
assert_no_drops() {
  local what="$1" url="$2" body
  body="$(curl -fsS "$url" 2>/dev/null)" || { log "FAILED: cannot read $what's metrics at $url"; exit 1; }
  local lines; lines="$(grep -E '^(grants_input_dropped_total|inventory_input_dropped_total|gate_grants_dropped_total)(\{| )' <<<"$body" || true)"
  local sum; sum="$(awk '{s+=$NF} END {printf "%d", s}' <<<"$lines")"
  if [ "${sum:-0}" != 0 ]; then
    log "FAILED: $what dropped $sum input record(s); the figures of this run are void:"
    grep -v ' 0\.0$' <<<"$lines" | sed 's/^/    /' >&2
    exit 1
  fi
  log "$what dropped no input records"
}

# a free port below the kernel's ephemeral range, so the gate's port-0 listeners cannot take it first
free_port() {
  python3 -c '
import random, socket
while True:
    p = random.randint(20000, 32000)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        s.close()'
}

wait_http() { # wait_http url seconds
  local url="$1" deadline=$(( $(date +%s) + ${2:-120} ))
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || { log "timed out waiting for $url"; return 1; }
    sleep 0.3
  done
}

# start_bg name cmd... : starts a child process with its log in the run dir; sets LAST_PID.
start_bg() {
  local name="$1"; shift
  "$@" >"$RUN_DIR/$name.log" 2>&1 &
  LAST_PID=$!
  BENCH_PIDS+=("$LAST_PID")
}

stop_pid() {
  local pid="$1" i
  [ "${JFR:-0}" = 1 ] && jcmd "$pid" JFR.dump name=bench >/dev/null 2>&1 || true
  kill "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

# A real KRaft broker (kafka_2.13 4.1.2 from bench/pom.xml) with the product's topics
# (contracts Topics.ALL, their cleanup policies, 4 partitions). Sets KAFKA (bootstrap servers) and KAFKA_PID.
# start_kafka [name] : name (default kafka) keeps a second broker's data and log apart (ingest-before-after.sh
# runs one per side, so each side's service reads only the records published to it).
start_kafka() {
  local port cport dir name="${1:-kafka}"
  port="$(free_port)"; cport="$(free_port)"
  dir="$RUN_DIR/$name"; mkdir -p "$dir"
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
num.partitions=4
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPS
  cat >"$dir/log4j2.properties" <<'PROPS'
rootLogger.level=WARN
rootLogger.appenderRef.out.ref=out
appender.out.type=Console
appender.out.name=out
appender.out.layout.type=PatternLayout
appender.out.layout.pattern=[%d] %p %m (%c)%n
PROPS
  local java=(java -Xms256m -Xmx512m -XX:+UseG1GC "-Dlog4j2.configurationFile=$dir/log4j2.properties" -cp "$CP")
  "${java[@]}" kafka.tools.StorageTool format -t "$("${java[@]}" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)" \
    -c "$dir/server.properties" >"$RUN_DIR/$name-format.log" 2>&1
  start_bg "$name" "${java[@]}" kafka.Kafka "$dir/server.properties"
  KAFKA_PID=$LAST_PID
  KAFKA="127.0.0.1:$port"
  driver BenchTopics "$KAFKA" >"$RUN_DIR/$name-topics.log" 2>&1 || { cat "$RUN_DIR/$name-topics.log" "$RUN_DIR/$name.log" >&2; return 1; }
  log "kafka at $KAFKA (pid $KAFKA_PID)"
}

# A fresh database on the local PostgreSQL server, dropped on exit. Prints its name.
create_db() {
  local name="bench_$1_$(date +%s)_$$"
  echo "$name" >> "$RUN_DIR/.bench-dbs" # before it exists: an interrupted CREATE leaves nothing undropped
  psql -q -d postgres -c "CREATE DATABASE \"$name\"" >/dev/null
  echo "$name"
}

# percentile P: the nearest-rank P-th percentile of the numbers on stdin ("nan" for none)
percentile() { sort -g | awk -v p="$1" '{v[NR]=$1} END {if (NR==0) {print "nan"; exit} i=int(NR*p/100+0.999); if (i<1) i=1; print v[i]}'; }
# median of the numbers on stdin (one per line)
median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) {print "nan"} else if (NR%2) {print a[(NR+1)/2]} else {printf "%.4g\n", (a[NR/2]+a[NR/2+1])/2}}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b+0 == 0) print "nan"; else printf "%.2f\n", a/b }'; }

rss_mib() { awk '/VmRSS/ {printf "%.1f\n", $2/1024}' "/proc/$1/status"; }

machine_line() {
  echo "machine: $(nproc) cores, $(free -m | awk '/Mem:/ {print $2}') MiB memory, $(uname -r); java $(java -version 2>&1 | head -1 | cut -d'"' -f2)"
}
load_now() { cut -d' ' -f1-3 /proc/loadavg; }

# cpu_ms pid... : the CPU time (user + system, with reaped children) the processes have used so far, in ms
cpu_ms() {
  local pid; for pid in "$@"; do cat "/proc/$pid/stat" 2>/dev/null || true; done \
    | awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); t += $12 + $13 + $14 + $15 } END { printf "%d\n", t * 1000 / hz }'
}
# pg_cpu_ms : cpu_ms of every postgres process (the server's exited backends count in the postmaster's children's
# time); the server is shared, so another user's work in the same window counts too
pg_cpu_ms() { cpu_ms $(pgrep -x postgres || true); }

# figure name value anchor ratio target : one figure of issue 21's table as a machine-readable line on stdout (and in
# $RUN_DIR/figures.txt), which bench/run-all.sh collects into one table:
#   FIGURE|name|value|anchor|ratio|target|status
# value and ratio are numbers ("-" when not measured; value may carry a unit after a space), anchor is what the
# figure is compared with in the same run, target is "ratio>=1.0", "ratio<=1.5", "value>=5000", "value<10"...;
# status is met, missed, or n/a when the figure it judges was not measured.
figure() {
  local name="$1" value="$2" anchor="$3" ratio="$4" target="$5" status=n/a x
  if [[ "$target" =~ ^(value|ratio)(\>=|\<=|\<|\>)([0-9.]+)$ ]]; then
    local op="${BASH_REMATCH[2]}" limit="${BASH_REMATCH[3]}"
    x="$ratio"; [ "${BASH_REMATCH[1]}" = value ] && x="${value%% *}"
    if [[ "$x" =~ ^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then
      status="$(awk -v x="$x" -v op="$op" -v t="$limit" 'BEGIN {
        x += 0; t += 0
        ok = (op == ">=" && x >= t) || (op == "<=" && x <= t) || (op == "<" && x < t) || (op == ">" && x > t)
        print ok ? "met" : "missed" }')"
    fi
  else
    log "figure $name: target '$target' is not of the form (value|ratio)(>=|<=|<|>)NUMBER"; return 1
  fi
  echo "FIGURE|$name|$value|$anchor|$ratio|$target|$status" | tee -a "$RUN_DIR/figures.txt"
}

# results: one line per figure, appended to $RESULTS (key value)
result() { echo "$1 $2" | tee -a "$RESULTS" >&2; }

# wrk_run name url duration connections [lua] : runs wrk --latency; prints "rps p50_ms p99_ms non2xx"
wrk_run() {
  local name="$1" url="$2" dur="$3" conns="$4" lua="${5:-}"
  local out="$RUN_DIR/wrk-$name.txt"
  local args=(-t2 -c"$conns" -d"$dur" --latency --timeout 10s)
  [ -n "$lua" ] && args+=(-s "$lua")
  wrk "${args[@]}" "$url" >"$out" 2>&1 || true
  awk '
    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
    /Requests\/sec:/ { rps=$2 }
    /^ +50%/ { p50=ms($2) } /^ +99%/ { p99=ms($2) }
    /Non-2xx or 3xx responses:/ { bad=$5 }
    /Socket errors:/ { err=$0 }
    END { if (bad=="") bad=0; printf "%s %.3f %.3f %s\n", rps, p50, p99, bad }' "$out"
}

# A docker-gate from the committed tree. start_gate name manifest statedir [java opts...]; sets GATE_PID, GATE_MGMT,
# GATE_METRICS. It applies only grant snapshots signed by BENCH_GRANTS_KEY (gate.grants-key) and signs its own
# records with GATE_SIGNING_KEY (default: a fresh pair beside the state dir; "FleetSim keyfile" writes a
# simulated machine's, for a gate whose records a service reads).
# Each gate pins bind sources under a root of its own in the run dir (not /run/rediacc/binds): two gates serving
# the same repo guid (GATE_BEFORE, or another session's bench) would otherwise sweep each other's pins at start.
start_gate() {
  local name="$1" manifest="$2" state="$3"; shift 3
  GATE_MGMT="$(free_port)"
  mkdir -p "$state"
  start_bg "$name" java "$@" $(jfr_opt "$name") -Dquarkus.http.port="$GATE_MGMT" -Dkafka.bootstrap.servers="$KAFKA" \
    -Dgate.manifest="$manifest" -Dgate.state-dir="$state" -Dgate.pin-root="$state-pins" -Dgate.heartbeat=5s \
    -Dgate.grants-key="$BENCH_GRANTS_PUB" -Dgate.signing-key="${GATE_SIGNING_KEY:-$state-machine-key.pem}" -jar "$DOCKER_GATE_JAR"
  GATE_PID=$LAST_PID; JFR_PIDS+=("$GATE_PID"); GATE_METRICS="http://127.0.0.1:$GATE_MGMT/q/metrics"
}

# grant-service from the committed tree on database $1; sets GS_URL, GS_PID, GS_METRICS. It signs with BENCH_GRANTS_KEY. Authentication off
# (api.auth.mode=none, or grants.auth.mode=none for a BENCH_REF before api-security): the drivers send no
# token, and a token lookup is not what these benches measure. The write rate limit is off for the same reason
# (api.rate-limit.enabled=false): a bench drives far more writes than one operator may.
# GS_NAME (default grant-service) names its log and JFR file, for a bench that runs several (grant-throughput.sh's
# BEFORE); GS_JAVA_OPTS adds JVM options or -D settings.
start_grant_service() {
  local db="$1" name="${GS_NAME:-grant-service}" port mgmt auth_off=-Dapi.auth.mode=none signing=(); port="$(free_port)"; mgmt="$(free_port)"
  # commits before api-security named the key grants.auth.mode (the new service refuses unknown grants.* keys)
  git -C "$REPO_ROOT" cat-file -e "$BENCH_REF:api-security" 2>/dev/null || auth_off=-Dgrants.auth.mode=none
  signed_ref && signing=(-Dgrants.signing.key-file="$BENCH_GRANTS_KEY")
  # shellcheck disable=SC2086
  start_bg "$name" java ${GS_JAVA_OPTS:-} $(jfr_opt "$name") -Dquarkus.http.port="$port" -Dquarkus.management.port="$mgmt" -Dkafka.bootstrap.servers="$KAFKA" \
    -Dquarkus.datasource.reactive.url="postgresql://$PGHOST:$PGPORT/$db" \
    -Dquarkus.datasource.username="$PGUSER" -Dquarkus.datasource.password="$PGPASSWORD" \
    "$auth_off" -Dapi.rate-limit.enabled=false "${signing[@]}" -jar "$GRANT_SERVICE_JAR"
  GS_PID=$LAST_PID; GS_URL="http://127.0.0.1:$port"; JFR_PIDS+=("$GS_PID")
  GS_METRICS="http://127.0.0.1:$mgmt/q/metrics"
  wait_http "$GS_URL/q/health/ready" 180 || { tail -30 "$RUN_DIR/$name.log" >&2; return 1; }
  log "$name at $GS_URL (pid $GS_PID)"
}

# the pgbench anchor's tables: copies of grant-service's, in the same database (see lib/grant-tx.sql)
prepare_pgbench_tables() {
  psql -q -d "$1" -c "CREATE TABLE IF NOT EXISTS bench_grants (LIKE grants INCLUDING ALL);
    CREATE TABLE IF NOT EXISTS bench_machine_versions (LIKE machine_versions INCLUDING ALL);
    CREATE TABLE IF NOT EXISTS bench_outbox (LIKE outbox INCLUDING ALL);" >/dev/null
}

# pgbench_run db clients seconds|tN [script] : prints "tps latency_avg_ms" (script: lib/grant-tx.sql)
pgbench_run() {
  local db="$1" clients="$2" len="$3" script="${4:-$BENCH_DIR/lib/grant-tx.sql}" out="$RUN_DIR/pgbench-$(date +%s%N).txt"
  local what=(-T "$len"); case "$len" in t*) what=(-t "${len#t}");; esac
  pgbench -n -M prepared -c "$clients" -j 2 "${what[@]}" -f "$script" "$db" >"$out" 2>&1 || { cat "$out" >&2; return 1; }
  awk '/^tps = / {tps=$3} /^latency average/ {lat=$4} END {printf "%s %s\n", tps, lat}' "$out"
}

# nginx answering like a Docker daemon (/_ping, /info, POST /containers/create; 404 to the rest, as to an unknown
# volume); sets NGX_PORT.
start_nginx_daemon() {
  NGX_PORT="$(free_port)"; local ngx="$RUN_DIR/nginx"; mkdir -p "$ngx/tmp"
  # GET /events: a container destroyed every second, and empty container and volume lists, so the gate's pin
  # watcher removes the pins of the containers this daemon "created" (lib/destroy-events.py)
  local events; events="$(free_port)"
  start_bg destroy-events python3 "$BENCH_DIR/lib/destroy-events.py" "$events"
  local id; id="$(printf 'b%.0s' $(seq 1 64))"
  cat >"$ngx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $ngx/nginx.pid;
error_log $ngx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $ngx/tmp; proxy_temp_path $ngx/tmp; fastcgi_temp_path $ngx/tmp;
  uwsgi_temp_path $ngx/tmp; scgi_temp_path $ngx/tmp;
  client_body_buffer_size 64k; client_max_body_size 8m;
  keepalive_requests 10000000; keepalive_timeout 120s;
  server {
    listen 127.0.0.1:$NGX_PORT backlog=4096;
    add_header Api-Version 1.47 always;
    add_header Docker-Experimental false always;
    add_header Ostype linux always;
    add_header Server "Docker/27.5.1 (linux)" always;
    location ~ ^(/v[0-9.]+)?/_ping\$ { default_type text/plain; return 200 "OK"; }
    # what the gate verifies of a repo daemon (runc by default, CDI specs only from /etc/cdi)
    location ~ ^(/v[0-9.]+)?/info\$ {
      default_type application/json;
      return 200 '{"ServerVersion":"27.5.1","DefaultRuntime":"runc","Runtimes":{"runc":{"path":"runc"}},"CDISpecDirs":["/etc/cdi"],"DockerRootDir":"$ngx/docker-root"}\n';
    }
    location ~ ^(/v[0-9.]+)?/containers/create\$ {
      default_type application/json;
      return 201 '{"Id":"$id","Warnings":[]}\n';
    }
    # the API versions the gate bounds requests by (it refuses versioned requests, 503, until it has read them)
    location ~ ^(/v[0-9.]+)?/version\$ {
      default_type application/json;
      return 200 '{"Version":"27.5.1","ApiVersion":"1.47","MinAPIVersion":"1.24","Os":"linux","Arch":"amd64"}\n';
    }
    location ~ ^(/v[0-9.]+)?/containers/json\$ { default_type application/json; return 200 '[]\n'; }
    location ~ ^(/v[0-9.]+)?/volumes\$ { default_type application/json; return 200 '{"Volumes":[],"Warnings":[]}\n'; }
    # the named volume the create body mounts (hf-cache), answered as dockerd answers an existing local volume
    # (before 2026-12-07 it answered 404, a volume the daemon would make: the gate read it on every create all the same)
    location ~ ^(/v[0-9.]+)?/volumes/hf-cache\$ {
      default_type application/json;
      return 200 '{"CreatedAt":"2026-12-01T00:00:00Z","Driver":"local","Labels":null,"Mountpoint":"/var/lib/docker/volumes/hf-cache/_data","Name":"hf-cache","Options":null,"Scope":"local"}\n';
    }
    location ~ ^(/v[0-9.]+)?/events\$ { proxy_pass http://127.0.0.1:$events; proxy_buffering off; proxy_read_timeout 1h; }
    location / { default_type application/json; return 404 '{"message":"page not found"}\n'; }
  }
}
CONF
  start_bg nginx /usr/sbin/nginx -p "$ngx" -c "$ngx/nginx.conf" -e "$ngx/error.log"
}
