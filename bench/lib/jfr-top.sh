#!/usr/bin/env bash
# jfr-top.sh FILE.jfr [N] — the hottest frames of a JFR recording's execution samples:
# top leaf frames, the same by library, samples by thread, top frames of the project's own code (io.rediacc)
# anywhere in the stack, and the garbage collections (count and total pause per collector).
# WINDOWS="HH:MM:SS-HH:MM:SS[,...]" (the recording's local times, as jfr print shows them): only the samples taken
# inside those windows (a bench's measured rounds, not the service's start or the bench's set-up).
# GROUPS_OF="name=regex;...": also the share of samples with a frame matching each regex anywhere on the stack.
set -eu  # no pipefail: head closes the pipes early (SIGPIPE upstream is expected)
f="$1"; n="${2:-15}"
jfr print --events jdk.ExecutionSample --stack-depth 64 "$f" >"$f.samples.txt"
samples="$f.samples.txt"
if [ -n "${WINDOWS:-}" ]; then
  samples="$f.window.txt"
  gawk -v windows="$WINDOWS" 'BEGIN { RS = "jdk.ExecutionSample \\{"; k = split(windows, w, ",")
      for (i = 1; i <= k; i++) { split(w[i], b, "-"); from[i] = b[1]; to[i] = b[2] } }
    NR > 1 { match($0, /startTime = ([0-9:]+)/, t); s = t[1]
      for (i = 1; i <= k; i++) if (s >= from[i] && s <= to[i]) { printf "jdk.ExecutionSample {%s", $0; break } }' \
    "$f.samples.txt" >"$samples"
  echo "windows: $WINDOWS"
fi
total="$(grep -c 'jdk.ExecutionSample' "$samples" || true)"
echo "execution samples: $total"
echo "-- top leaf frames"
awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/line:.*/, ""); print}' "$samples" | sort | uniq -c | sort -rn | head -"$n"
echo "-- leaf frames by library (the first three parts of the class name)"
awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/\(.*/, ""); n = split($0, p, "."); print (n > 3 ? p[1] "." p[2] "." p[3] : $0)}' "$samples" \
  | sort | uniq -c | sort -rn | head -"$n"
echo "-- samples by thread (numbers in names folded)"
awk '/sampledThread = / {t=$0; sub(/.*sampledThread = "/, "", t); sub(/".*/, "", t); gsub(/[0-9]+/, "N", t); print t}' "$samples" \
  | sort | uniq -c | sort -rn | head -"$n"
echo "-- top project frames (inclusive: samples with the frame anywhere on the stack)"
awk '/jdk.ExecutionSample/ {delete seen} /io\.rediacc/ {l=$0; sub(/^[ \t]+/, "", l); sub(/line:.*/, "", l); if (!(l in seen)) {seen[l]=1; print l}}' "$samples" \
  | sort | uniq -c | sort -rn | head -"$n"
if [ -n "${GROUPS_OF:-}" ]; then
  echo "-- samples by group (inclusive; a sample may count in several)"
  IFS=';' read -ra groups <<<"$GROUPS_OF"
  for g in "${groups[@]}"; do
    awk -v name="${g%%=*}" -v p="${g#*=}" -v total="$total" '/jdk.ExecutionSample/ {hit = 0} $0 ~ p && !hit {c++; hit = 1}
      END {printf "%7d %5.1f%%  %s\n", c, (total > 0 ? 100 * c / total : 0), name}' "$samples"
  done
fi
echo "-- garbage collections (count, total pause) by collector"
jfr print --events jdk.GarbageCollection "$f" | awk '
  function ms(v, u) { return u == "s" ? v * 1000 : u == "us" ? v / 1000 : u == "ns" ? v / 1e6 : v }
  $1 == "name" { name = $3; gsub(/"/, "", name) }
  $1 == "sumOfPauses" { n[name]++; t[name] += ms($3, $4) }
  END { for (c in n) printf "%8d %10.1f ms  %s\n", n[c], t[c], c }'
