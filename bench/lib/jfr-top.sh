#!/usr/bin/env bash
# jfr-top.sh FILE.jfr [N] — the hottest frames of a JFR recording's execution samples:
# top leaf frames, and top frames of the project's own code (io.rediacc) anywhere in the stack.
# WINDOWS="HH:MM:SS-HH:MM:SS[,...]" (the recording's local times, as jfr print shows them): only the samples taken
# inside those windows (a bench's measured rounds, not the service's start or the bench's set-up).
set -euo pipefail
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
awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/line:.*/, ""); print}' "$samples" | sort | uniq -c | sort -rn | awk -v n="$n" 'NR <= n'
echo "-- top project frames (inclusive: samples with the frame anywhere on the stack)"
awk '/jdk.ExecutionSample/ {delete seen} /io\.rediacc/ {l=$0; sub(/^[ \t]+/, "", l); sub(/line:.*/, "", l); if (!(l in seen)) {seen[l]=1; print l}}' "$samples" \
  | sort | uniq -c | sort -rn | awk -v n="$n" 'NR <= n'
# GROUPS_OF="name=regex;...": the share of samples with a frame matching each regex anywhere on the stack
if [ -n "${GROUPS_OF:-}" ]; then
  echo "-- samples by group (inclusive; a sample may count in several)"
  IFS=';' read -ra groups <<<"$GROUPS_OF"
  for g in "${groups[@]}"; do
    awk -v name="${g%%=*}" -v p="${g#*=}" -v total="$total" '/jdk.ExecutionSample/ {hit = 0} $0 ~ p && !hit {c++; hit = 1}
      END {printf "%7d %5.1f%%  %s\n", c, (total > 0 ? 100 * c / total : 0), name}' "$samples"
  done
fi
