#!/usr/bin/env bash
# jfr-top.sh FILE.jfr [N] — the hottest frames of a JFR recording's execution samples:
# top leaf frames, and top frames of the project's own code (io.rediacc) anywhere in the stack.
set -euo pipefail
f="$1"; n="${2:-15}"
jfr print --events jdk.ExecutionSample --stack-depth 64 "$f" >"$f.samples.txt"
total="$(grep -c 'jdk.ExecutionSample' "$f.samples.txt" || true)"
echo "execution samples: $total"
echo "-- top leaf frames"
awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/line:.*/, ""); print}' "$f.samples.txt" | sort | uniq -c | sort -rn | head -"$n" || true
echo "-- top project frames (inclusive: samples with the frame anywhere on the stack)"
awk '/jdk.ExecutionSample/ {delete seen} /io\.rediacc/ {l=$0; sub(/^[ \t]+/, "", l); sub(/line:.*/, "", l); if (!(l in seen)) {seen[l]=1; print l}}' "$f.samples.txt" \
  | sort | uniq -c | sort -rn | head -"$n" || true
