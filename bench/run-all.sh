#!/usr/bin/env bash
# Runs the four benchmarks one after the other and collects their summaries in bench/.work/last-run.md.
set -euo pipefail
cd "$(dirname "$0")"
out=".work/last-run.md"; mkdir -p .work; : >"$out"
for b in gate-dataplane grant-propagation grant-throughput fleet-scale; do
  echo "=== $b ===" >&2
  ./"$b".sh | tee -a "$out"
  echo >>"$out"
done
echo "summaries: bench/$out" >&2
