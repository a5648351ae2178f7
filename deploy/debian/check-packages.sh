#!/usr/bin/env bash
# Checks the two .deb packages the build made (deploy/debian/target) on this Debian machine, as an
# operator would use them: lintian without errors, dpkg -i, the units verified, the gate's user and
# directories with the modes the gate requires, rdc answering with its CDS archive, an upgrade that
# keeps the operator's configuration, dpkg --purge, and nothing left behind but the gate's system
# user (Debian leaves system users on purge). Runs as root; .ci/run calls it after mvn verify.
set -euo pipefail
cd "$(dirname "$0")"

fail() { echo "check-packages: FAIL: $*" >&2; exit 1; }
step() { echo "check-packages: $*"; }
[ "$(id -u)" = 0 ] || fail "run as root (it installs and purges the packages)"
# local-fleet's MachineSetupIT checks that a simulated machine's setup leaves this host's dpkg status of
# rediacc-gpu-node alone, and .ci/run runs this script beside it: both hold this lock meanwhile
exec 9> /tmp/rediacc-gpu-node-host-package.lock
flock -x 9

node=$(ls target/rediacc-gpu-node_*_all.deb 2>/dev/null | tail -1)
cli=$(ls target/rediacc-gpu-cli_*_all.deb 2>/dev/null | tail -1)
[ -n "$node" ] && [ -n "$cli" ] || fail "no packages in deploy/debian/target; build them first (mvn -B package)"
units="node-agent-setup.service node-agent.service docker-gate.service"

# what the checks need, installed before the "before" snapshot so it does not count as left over
export DEBIAN_FRONTEND=noninteractive
if ! command -v lintian >/dev/null; then
  step "installing lintian"
  apt-get install -y -q --no-install-recommends lintian >/dev/null
fi
# Depends: default-jre-headless (>= 2:1.17) | java17-runtime-headless. Debian's OpenJDK 17
# (openjdk-17-jre-headless) provides the latter; a Java from elsewhere (e.g. Temurin in /usr/lib/jvm
# without a package) does not, so install Debian's runtime when nothing provides it.
if ! dpkg-query -W -f='${Status}\n' default-jre-headless openjdk-17-jre-headless openjdk-21-jre-headless 2>/dev/null | grep -q "install ok installed"; then
  step "installing Debian's Java runtime (default-jre-headless)"
  apt-get install -y -q --no-install-recommends default-jre-headless >/dev/null
fi

# a previous, interrupted run
dpkg --purge rediacc-gpu-node rediacc-gpu-cli >/dev/null 2>&1 || true

step "lintian $(basename "$node") $(basename "$cli")"
lintian --fail-on error --tag-display-limit 0 "$node" "$cli" || fail "lintian reports errors"

# (/run/rediacc-dockerd: the exec roots of test fleets' real Docker daemons, which may start meanwhile;
# /run/containerd: their containers' shims' sockets, which containerd-shim-runc-v2 puts under /run/containerd/s/
# whatever the daemon's roots, for as long as a test's container runs; /run/mount: libmount's own state, made by
# the first mount(8) after boot, e.g. a test's pins or daemons meanwhile)
# Pruned: package managers' and logs' own state, and the state of the other services this machine runs (PostgreSQL,
# MariaDB, Redis, RabbitMQ, Mosquitto, NATS, Prometheus), which they write on their own schedule: Mosquitto saving
# mosquitto.db during a check made it fail once. Our packages write none of these.
snapshot() {
  find /etc /usr /lib /var /run /opt -xdev \
    \( -path /var/lib/mosquitto -o -path /var/lib/redis -o -path /var/lib/rabbitmq -o -path /var/lib/mysql \
       -o -path /var/lib/nats-server -o -path /var/lib/prometheus -o -path /run/mosquitto -o -path /run/mysqld \
       -o -path /run/redis.pid \
       -o -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache/apt -o -path /var/log -o -path /var/tmp \
       -o -path /var/cache/man -o -path /var/lib/systemd/deb-systemd-helper-enabled -o -path /run/user \
       -o -path /var/lib/postgresql -o -path /run/postgresql -o -path /run/systemd -o -path /var/cache/debconf -o -path /var/backups \
       -o -path /run/rediacc-dockerd -o -path /run/containerd -o -path /run/mount \) -prune \
    -o -print 2>/dev/null | sort
}
before=$(mktemp)
after=$(mktemp)
made_docker_group=
trap 'rm -f "$before" "$after"; if [ -n "$made_docker_group" ]; then groupdel docker; fi' EXIT
# The gate joins the group "docker" where it exists (postinst). A machine without Docker gets a
# docker group for the check's length, so the check always has something to find.
if ! getent group docker >/dev/null; then
  groupadd --system docker
  made_docker_group=1
fi
snapshot > "$before"

step "dpkg -i"
dpkg -i "$node" "$cli" > /tmp/check-packages-dpkg.log 2>&1 || { cat /tmp/check-packages-dpkg.log; fail "dpkg -i"; }
grep -q "nothing is enabled yet" /tmp/check-packages-dpkg.log || fail "postinst does not say what to do next"

step "renet setup, the machine-local setup"
[ -x /usr/sbin/renet ] || fail "/usr/sbin/renet missing"
/usr/sbin/renet setup --help | grep -q -- "--install-nvidia-toolkit" || fail "renet setup is not node-agent prepare"

step "systemd-analyze verify"
for unit in $units; do
  [ -f "/lib/systemd/system/$unit" ] || fail "$unit not installed"
done
# (units it only orders itself after, such as nvidia-persistenced.service, need not exist)
out=$(cd /lib/systemd/system && systemd-analyze verify $units 2>&1 | grep -v -e "nvidia-persistenced.service" -e "^$" || true)
[ -z "$out" ] || { echo "$out"; fail "systemd-analyze verify"; }
for unit in $units; do
  if systemctl is-enabled --quiet "$unit" 2>/dev/null; then fail "$unit was enabled by the package"; fi
done

step "the gate's user and directories"
getent passwd rediacc-gate | grep -q ":/usr/sbin/nologin$" || fail "user rediacc-gate missing or has a login shell"
id -nG rediacc-gate | tr ' ' '\n' | grep -qx docker || fail "rediacc-gate is not in the group docker (the repo daemons' sockets)"
expect_mode() { # path owner group mode
  actual=$(stat -c '%U %G %a' "$1" 2>/dev/null) || fail "$1 missing"
  [ "$actual" = "$2 $3 $4" ] || fail "$1 is '$actual', expected '$2 $3 $4'"
}
expect_mode /var/lib/rediacc/gate rediacc-gate rediacc-gate 700
expect_mode /run/rediacc/gate rediacc-gate rediacc-gate 755
expect_mode /etc/rediacc/gate root root 755
expect_mode /etc/rediacc/gpu/node-agent.env root root 600
expect_mode /etc/rediacc/gpu/docker-gate.env root root 600
for conf in /etc/rediacc/gpu/node-agent.env /etc/rediacc/gpu/docker-gate.env; do
  grep -qx "$conf" /var/lib/dpkg/info/rediacc-gpu-node.conffiles || fail "$conf is not a conffile"
done

step "the installed programs run"
version=$(rdc --version) || fail "rdc --version"
[[ $version == "rdc "* ]] || fail "rdc --version printed '$version'"
[ -f /var/cache/rediacc-gpu-cli/rdc.jsa ] || fail "postinst made no CDS archive"
RDC_JAVA_OPTS=-Xshare:on rdc --version >/dev/null 2>&1 || fail "rdc does not start with its CDS archive (-Xshare:on)"
set +e; rdc --config /dev/null --inventory-server http://127.0.0.1:9 machine list 2>/dev/null; rc=$?; set -e
[ "$rc" = 1 ] || fail "rdc machine list against nothing exited $rc, expected 1"
[ -f /usr/share/bash-completion/completions/rdc ] && [ -f /usr/share/zsh/vendor-completions/_rdc ] || fail "completion missing"
bash -c 'source /usr/share/bash-completion/completions/rdc && complete -p rdc' >/dev/null || fail "bash completion does not load"
for page in rdc rdc-machine-setup rdc-repo-gpu-grant; do
  f=/usr/share/man/man1/$page.1.gz
  [ -f "$f" ] || fail "man page $f missing"
  gzip -t "$f" || fail "$f is not a valid gzip file"
  zcat "$f" | grep -q '^\.TH ' || fail "$f is not a roff man page (no .TH)"
done
zcat /usr/share/man/man1/rdc.1.gz | grep -q 'machine' || fail "rdc.1 does not name its commands"
if command -v man >/dev/null; then
  rendered=$(MANWIDTH=100 man -l /usr/share/man/man1/rdc-machine-setup.1.gz 2>&1) || fail "man -l rdc-machine-setup.1.gz"
  grep -q -- '--install-nvidia-toolkit' <<<"$rendered" || fail "man rdc-machine-setup does not render its options"
fi
/usr/lib/rediacc-gpu-node/bin/node-agent --help >/dev/null 2>&1 || fail "node-agent --help"
# the jars both applications carry are shipped once (node/shared-jars.sh): each app's lib/main links to them
apps=/usr/share/rediacc-gpu-node
[ "$(find "$apps/node-agent/lib/main" "$apps/docker-gate/lib/main" -type l | wc -l)" -gt 0 ] \
  || fail "no jar of $apps/{node-agent,docker-gate}/lib/main links to $apps/lib/main"
broken=$(find "$apps" -xtype l)
[ -z "$broken" ] || fail "links that lead nowhere: $broken"

step "upgrade keeps the operator's configuration"
echo "AGENT_MACHINE=check-packages" >> /etc/rediacc/gpu/node-agent.env
dpkg -i --force-confold "$node" >/dev/null 2>&1 || fail "reinstall"
grep -qx "AGENT_MACHINE=check-packages" /etc/rediacc/gpu/node-agent.env || fail "upgrade replaced node-agent.env"
expect_mode /var/lib/rediacc/gate rediacc-gate rediacc-gate 700

step "dpkg --purge"
dpkg --purge rediacc-gpu-node rediacc-gpu-cli >/dev/null || fail "dpkg --purge"
getent passwd rediacc-gate >/dev/null || fail "purge removed the system user (Debian keeps it)"
snapshot > "$after"
# the user database's backup copies may appear (systemd-sysusers writes them): part of the kept user
left=$(comm -13 "$before" "$after" | grep -v -x -e '/etc/passwd-' -e '/etc/group-' -e '/etc/shadow-' -e '/etc/gshadow-' || true)
[ -z "$left" ] || { echo "$left"; fail "left behind after purge"; }

step "ok"
