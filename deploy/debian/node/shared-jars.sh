#!/bin/sh
# The node package's two applications as one tar for jdeb, each jar the two carry byte for byte shipped once:
#   <out>: node-agent/…, docker-gate/… (their quarkus-app directories) and lib/main/<jar>, the jars both apps'
#   lib/main hold with the same name and the same bytes; in each app those are relative symlinks
#   (node-agent/lib/main/<jar> -> ../../../lib/main/<jar>), which the Quarkus runner opens like the file.
# Half the package's bytes were these duplicates (79 jars, 44 of 89 MB): every machine that rdc machine setup
# prepares receives the package over SSH. A jar (file) that becomes a symlink is replaced by dpkg on upgrade;
# a directory would not be, so lib/main stays a directory in each app.
# Usage: shared-jars.sh <node-agent quarkus-app> <docker-gate quarkus-app> <out.tar.gz>
set -eu
[ $# -eq 3 ] || { echo "usage: $0 <node-agent quarkus-app> <docker-gate quarkus-app> <out.tar.gz>" >&2; exit 2; }
agent=$1 gate=$2 out=$3
for app in "$agent" "$gate"; do
  [ -f "$app/quarkus-run.jar" ] && [ -d "$app/lib/main" ] || { echo "$app: not a built quarkus-app (no quarkus-run.jar or lib/main)" >&2; exit 2; }
done
mkdir -p "$(dirname "$out")"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -R "$agent" "$stage/node-agent"
cp -R "$gate" "$stage/docker-gate"
mkdir -p "$stage/lib/main"
shared=0
for jar in "$stage"/node-agent/lib/main/*.jar; do
  name=$(basename "$jar")
  twin="$stage/docker-gate/lib/main/$name"
  # the same name with other bytes (never seen: one reactor, one BOM) stays a file in each app
  [ -f "$twin" ] && cmp -s "$jar" "$twin" || continue
  mv "$jar" "$stage/lib/main/$name"
  rm "$twin"
  ln -s "../../../lib/main/$name" "$jar"
  ln -s "../../../lib/main/$name" "$twin"
  shared=$((shared + 1))
done
[ "$shared" -gt 0 ] || { echo "no jar shared by node-agent and docker-gate: their lib/main layout changed?" >&2; exit 1; }
find "$stage" -type d -exec chmod 755 {} +
find "$stage" -type f -exec chmod 644 {} +
# fixed order and owner; gzip -1: jars are compressed already, jdeb compresses the package again
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$stage" -cf - lib node-agent docker-gate | gzip -1n > "$out"
echo "shared-jars: $shared jars shipped once ($(du -sh "$stage/lib/main" | cut -f1)), $out"
