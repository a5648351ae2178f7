#!/usr/bin/env bash
# jfr-top.sh FILE.jfr [N] — the hottest frames of a JFR recording's execution samples:
# top leaf frames, the same by library, samples by thread, top frames of the project's own code (io.rediacc)
# anywhere in the stack, and the garbage collections (count and total pause per collector).
set -eu  # no pipefail: head closes the pipes early (SIGPIPE upstream is expected)
f="$1"; n="${2:-15}"
jfr print --events jdk.ExecutionSample --stack-depth 64 "$f" >"$f.samples.txt"
total="$(grep -c 'jdk.ExecutionSample' "$f.samples.txt" || true)"
echo "execution samples: $total"
echo "-- top leaf frames"
awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/line:.*/, ""); print}' "$f.samples.txt" | sort | uniq -c | sort -rn | head -"$n"
echo "-- leaf frames by library (the first three parts of the class name)"
awk '/stackTrace = \[/ {getline; sub(/^[ \t]+/, ""); sub(/\(.*/, ""); n = split($0, p, "."); print (n > 3 ? p[1] "." p[2] "." p[3] : $0)}' "$f.samples.txt" \
  | sort | uniq -c | sort -rn | head -"$n"
echo "-- samples by thread (numbers in names folded)"
awk '/sampledThread = / {t=$0; sub(/.*sampledThread = "/, "", t); sub(/".*/, "", t); gsub(/[0-9]+/, "N", t); print t}' "$f.samples.txt" \
  | sort | uniq -c | sort -rn | head -"$n"
echo "-- top project frames (inclusive: samples with the frame anywhere on the stack)"
awk '/jdk.ExecutionSample/ {delete seen} /io\.rediacc/ {l=$0; sub(/^[ \t]+/, "", l); sub(/line:.*/, "", l); if (!(l in seen)) {seen[l]=1; print l}}' "$f.samples.txt" \
  | sort | uniq -c | sort -rn | head -"$n"
echo "-- garbage collections (count, total pause) by collector"
jfr print --events jdk.GarbageCollection "$f" | awk '
  function ms(v, u) { return u == "s" ? v * 1000 : u == "us" ? v / 1000 : u == "ns" ? v / 1e6 : v }
  $1 == "name" { name = $3; gsub(/"/, "", name) }
  $1 == "sumOfPauses" { n[name]++; t[name] += ms($3, $4) }
  END { for (c in n) printf "%8d %10.1f ms  %s\n", n[c], t[c], c }'
