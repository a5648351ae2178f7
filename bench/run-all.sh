#!/usr/bin/env bash
# Runs the four benchmarks one after the other, from a fresh clone too (each builds what it needs in
# bench/.work), and writes one summary, bench/.work/last-run.md: a table with one row per figure of issue 21
# (the FIGURE|name|value|anchor|ratio|target|status lines the benches print: the figure, its anchor measured in
# the same run, the ratio, the target, met/missed), then each bench's own summary.
#
#   bench/run-all.sh              the full run: every bench with its defaults (docs/BENCHMARKS.md, "Running every
#                                 bench from a fresh clone", says how long it takes)
#   QUICK=1 bench/run-all.sh      a smoke test in a few minutes once built: one round, short loads, 1,000 machines
#   BENCHES="gate-dataplane fleet-scale" bench/run-all.sh   a subset
# Every other variable passes through to the benches (ROUNDS, DURATION, MACHINES, BENCH_REF, JFR...); in quick
# mode those left unset get small values per bench (DURATION is "3s" for wrk's benches, seconds for
# grant-throughput). A bench that fails (or drops input records) is reported as failed, the others still run,
# and the script exits 1.
set -uo pipefail
cd "$(dirname "$0")"
WORK=.work; mkdir -p "$WORK/run-all"
out="$WORK/last-run.md"
BENCHES="${BENCHES:-gate-dataplane grant-propagation grant-throughput fleet-scale}"
QUICK="${QUICK:-0}"
started="$(date -u +%s)"; load_start="$(cut -d' ' -f1-3 /proc/loadavg)"
commit="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD -- . ../pom.xml 2>/dev/null || commit="$commit (bench/ has uncommitted changes)"
# BENCH_REF picks the services' code (and the gate unit's flags); the scripts and drivers are this checkout's
[ -z "${BENCH_REF:-}" ] || commit="$commit, services from BENCH_REF=$BENCH_REF ($(git rev-parse --short=12 "$BENCH_REF" 2>/dev/null || echo unknown))"

# quick mode: small settings for what the caller left unset, per bench
quick_env() { # quick_env bench : prints env assignments
  [ "$QUICK" = 1 ] || return 0
  case "$1" in
    gate-dataplane) echo "ROUNDS=${ROUNDS:-1} DURATION=${DURATION:-3s}" ;;
    grant-propagation) echo "ROUNDS=${ROUNDS:-1} OPS=${OPS:-50}" ;;
    grant-throughput) echo "ROUNDS=${ROUNDS:-1} DURATION=${DURATION:-5} WARMUP=${WARMUP:-5}" ;;
    fleet-scale) echo "ROUNDS=${ROUNDS:-1} MACHINES=${MACHINES:-1000} WARM_MACHINES=${WARM_MACHINES:-200} DURATION=${DURATION:-3s}" ;;
  esac
}

declare -A RC SECS
write_summary() {
  {
    echo "# Benchmark run $(date -u +'%Y-%m-%d %H:%M UTC')"
    echo
    echo "commit $commit; $( [ "$QUICK" = 1 ] && echo "QUICK=1 (smoke test: one round, short loads; the figures are not comparable with a full run)" || echo "full run" );"
    echo "$(nproc) cores, $(free -m | awk '/Mem:/ {print $2}') MiB memory, $(uname -r); load at start $load_start, now $(cut -d' ' -f1-3 /proc/loadavg);" \
      "$(( ($(date -u +%s) - started) / 60 )) min so far"
    echo
    echo "| figure | value | anchor (same run) | ratio | target | status |"
    echo "|---|---|---|---|---|---|"
    local b
    for b in $BENCHES; do
      if [ -n "${RC[$b]:-}" ] && [ "${RC[$b]}" != 0 ]; then
        echo "| **$b failed** (exit ${RC[$b]}: bench/$WORK/run-all/$b.err) | | | | | failed |"
      fi
      [ -f "$WORK/run-all/$b.out" ] || continue
      grep '^FIGURE|' "$WORK/run-all/$b.out" | awk -F'|' '{
        t = $6; sub(/(>=|<=|<|>)/, " & ", t)
        status = ($7 == "met") ? "met" : ($7 == "missed" ? "**missed**" : $7)
        printf "| %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, t, status }'
    done
    echo
    echo "Per bench: exit status and wall time"
    echo
    for b in $BENCHES; do
      [ -n "${RC[$b]:-}" ] && echo "- $b: exit ${RC[$b]}, ${SECS[$b]} s ($(quick_env "$b"))"
    done
    for b in $BENCHES; do
      [ -f "$WORK/run-all/$b.out" ] || continue
      echo
      grep -v '^FIGURE|' "$WORK/run-all/$b.out"
    done
  } >"$out.tmp" && mv "$out.tmp" "$out"
}

failed=0
for b in $BENCHES; do
  echo "=== $b $(quick_env "$b") ===" >&2
  rm -f "$WORK/run-all/$b.out" "$WORK/run-all/$b.err"
  t0="$(date -u +%s)"
  # shellcheck disable=SC2046
  env $(quick_env "$b") ./"$b".sh >"$WORK/run-all/$b.out" 2> >(tee "$WORK/run-all/$b.err" >&2)
  RC[$b]=$?; SECS[$b]=$(( $(date -u +%s) - t0 ))
  [ "${RC[$b]}" = 0 ] || { failed=1; echo "=== $b FAILED (exit ${RC[$b]}) ===" >&2; }
  write_summary
done
cat "$out"
echo "summary: bench/$out ($(( ($(date -u +%s) - started) / 60 )) min)" >&2
exit "$failed"
