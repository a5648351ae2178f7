#!/usr/bin/env bash
# Fetches the parts of a real Docker daemon from Debian's packages into CACHE and extracts them
# there with dpkg -x: nothing is installed system-wide (the machine's docker CLI stays as it is).
#   fetch-dockerd.sh CACHE     fetch once; a complete cache is reused offline
#   REDIACC_DOCKERD_REFRESH=1  fetch again (the suites move: versions change, old ones vanish)
#   REDIACC_DEBIAN_MIRROR=URI  another mirror (default: the machine's own, from its apt sources)
# What comes from where, and why (see real-dockerd/README.md):
#   docker.io, containerd, docker-compose  sid (dockerd 28 with CDI, compose that sends devices: CDI names
#                                          as CDI requests); each one falls back to trixie (dockerd 26) when sid lacks it
#   runc, busybox-static, tini             bookworm (trixie's runc needs a newer glibc than bookworm's)
set -euo pipefail
CACHE=${1:?usage: fetch-dockerd.sh CACHE_DIR}
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
exec 9>"$CACHE/.lock"
flock 9    # one fetch at a time: tests of several modules and ./fleet may ask together
if [[ -f "$CACHE/root/.complete" && -z "${REDIACC_DOCKERD_REFRESH:-}" ]]; then
  exit 0
fi

mirror=${REDIACC_DEBIAN_MIRROR:-}
if [[ -z $mirror && -f /etc/apt/sources.list.d/debian.sources ]]; then
  mirror=$(awk '$1 == "URIs:" && $2 !~ /security/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z $mirror && -f /etc/apt/sources.list ]]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }' /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

apt_opts() {
  local d="$CACHE/apt/$1"
  echo "-o Dir::Etc::SourceList=$d/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$d/lists" \
       "-o Dir::Cache=$d/cache -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
}
updated=""
update_suite() {   # the suite's package lists, once per fetch
  local suite=$1 d="$CACHE/apt/$1"
  [[ " $updated " == *" $suite "* ]] && return 0
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
  echo "deb [signed-by=$keyring] $mirror $suite main" > "$d/sources.list"
  # shellcheck disable=SC2046
  apt-get -qq $(apt_opts "$suite") update || return 1
  updated="$updated $suite"
}
fetch() {   # fetch SUITE PACKAGE: the package's .deb into debs.new, from SUITE
  local suite=$1 pkg=$2
  update_suite "$suite" || return 1
  # shellcheck disable=SC2046
  (cd "$CACHE/debs.new" && apt-get -qq $(apt_opts "$suite") download "$pkg" > /dev/null 2>&1)
}

rm -rf "$CACHE/debs.new" "$CACHE/root.new"
mkdir -p "$CACHE/debs.new"
: > "$CACHE/debs.new/SUITES"
for pkg in docker.io containerd docker-compose; do
  if fetch sid "$pkg"; then
    echo "$pkg sid" >> "$CACHE/debs.new/SUITES"
  elif fetch trixie "$pkg"; then
    echo "$pkg trixie" >> "$CACHE/debs.new/SUITES"
  else
    echo "fetch-dockerd: cannot fetch $pkg from $mirror (suites sid and trixie)" >&2
    exit 1
  fi
done
for pkg in runc busybox-static tini; do
  fetch bookworm "$pkg" || { echo "fetch-dockerd: cannot fetch $pkg from $mirror (suite bookworm)" >&2; exit 1; }
  echo "$pkg bookworm" >> "$CACHE/debs.new/SUITES"
done

mkdir -p "$CACHE/root.new"
for f in "$CACHE"/debs.new/*.deb; do
  dpkg -x "$f" "$CACHE/root.new"
  dpkg-deb -W --showformat='${Package} ${Version}\n' "$f" >> "$CACHE/root.new/PACKAGES"
done
cp "$CACHE/debs.new/SUITES" "$CACHE/root.new/SUITES"
touch "$CACHE/root.new/.complete"
rm -rf "$CACHE/root.old" "$CACHE/debs"
if [[ -d "$CACHE/root" ]]; then mv "$CACHE/root" "$CACHE/root.old"; fi
mv "$CACHE/root.new" "$CACHE/root"
mv "$CACHE/debs.new" "$CACHE/debs"
rm -rf "$CACHE/root.old"
echo "fetch-dockerd: extracted into $CACHE/root from $mirror:"
sed 's/^/  /' "$CACHE/root/PACKAGES"
