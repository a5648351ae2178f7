#!/usr/bin/env bash
# Bench — issue 30's race loop at full size, as root, against a real dockerd (test-support's
# RealDockerd): a container of the repo swaps the checked bind directory for a symlink to the host's
# / as fast as it can while <starts> containers binding it start through the gate. Every start must
# mount only the pinned directory or be refused; the test fails otherwise. CI runs 40 starts of the
# same test (RealDaemonAllowlistTest#startsRacingASwapperToTheHostRootMountOnlyThePinOrAreRefused).
# Prints "race: N starts ..., A admitted (each the pin), R refused, T s".
#   bench/gate-swap-race.sh [starts=200]
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "gate-swap-race: run as root (real dockerd, mount(2))" >&2; exit 2; }
export REDIACC_DOCKERD_CACHE="${REDIACC_DOCKERD_CACHE:-/var/cache/rediacc-gpu/dockerd}"
mvn -B -o -q -pl docker-gate -am test -DskipITs -Dsurefire.failIfNoSpecifiedTests=false \
  -Dtest='RealDaemonAllowlistTest#startsRacingASwapperToTheHostRootMountOnlyThePinOrAreRefused' \
  -Dgate.race.starts="${1:-200}"
grep -h '^race:' docker-gate/target/surefire-reports/*RealDaemonAllowlistTest-output.txt
