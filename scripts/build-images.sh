#!/usr/bin/env bash
# build-images.sh OUTDIR — build the two images the node tests run, offline, from Debian packages
# and this repo's sources, as docker-archive tarballs that `ctr -n k8s.io images import FILE`
# imports under their names on containerd 1.6 and 1.7:
#
#   OUTDIR/pause.tar    localhost/nodeagent/pause:1.0     static /pause (images/pause/pause.c), entrypoint ["/pause"]
#   OUTDIR/busybox.tar  localhost/nodeagent/busybox:1.35  busybox-static + applet symlinks, /etc/passwd, cmd ["sh"]
#
# umoci builds each image in an OCI layout; skopeo writes it as a docker archive, whose
# manifest.json RepoTags carries the name (ctr import names OCI archives less reliably).
# Rebuilds only when an input changed (this script, pause.c, the busybox binary): OUTDIR/.images.stamp
# holds their hash. Needs: gcc libc6-dev busybox-static umoci skopeo (scripts/install-node.sh), root.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUT=$1
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PAUSE_SRC=$REPO/images/pause/pause.c
BUSYBOX=/bin/busybox
PAUSE_NAME=localhost/nodeagent/pause:1.0
BUSYBOX_NAME=localhost/nodeagent/busybox:1.35
log() { printf 'build-images: %s\n' "$*" >&2; }
# shellcheck source=oci-image.sh
. "$REPO/scripts/oci-image.sh"

for tool in gcc umoci skopeo sha256sum; do
  command -v "$tool" >/dev/null || { log "missing $tool: run scripts/install-node.sh"; exit 1; }
done
[ -x "$BUSYBOX" ] || { log "missing $BUSYBOX: apt-get install busybox-static"; exit 1; }
[ "$(id -u)" = 0 ] || { log "must run as root (umoci unpack keeps file owners)"; exit 1; }

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
stamp=$OUT/.images.stamp
hash=$(cat "${BASH_SOURCE[0]}" "$REPO/scripts/oci-image.sh" "$PAUSE_SRC" "$BUSYBOX" | sha256sum | cut -d' ' -f1)
if [ -f "$OUT/pause.tar" ] && [ -f "$OUT/busybox.tar" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$hash" ]; then
  log "up to date: $OUT/pause.tar ($PAUSE_NAME), $OUT/busybox.tar ($BUSYBOX_NAME)"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/nodeagent-images.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
LAYOUT=$WORK/oci
umoci init --layout "$LAYOUT"

# build_image TAG POPULATE_FN NAME OUTFILE [umoci config args...] (oci-image.sh)
# POPULATE_FN ROOTFS fills the (empty) root filesystem of the image's single layer.
build_image() {
  local tag=$1 populate=$2 name=$3 outfile=$4
  shift 4
  oci_image "$LAYOUT" "$WORK" "$tag" "$populate" "$name" "$outfile" "nodeagent scripts/build-images.sh" "$@"
  log "built $name -> $outfile ($(du -h "$outfile" | cut -f1))"
}

populate_pause() {
  local rootfs=$1
  gcc -static -Os -Wall -Wextra -Werror -o "$rootfs/pause" "$PAUSE_SRC"
  strip "$rootfs/pause"
}

populate_busybox() {
  local rootfs=$1 applet dir
  install -D -m 0755 "$BUSYBOX" "$rootfs/bin/busybox"
  # One symlink per applet, at the path busybox itself reports (bin/sh, usr/bin/env, sbin/init, ...).
  while read -r applet; do
    if [ -z "$applet" ] || [ "$applet" = bin/busybox ]; then continue; fi
    dir=$(dirname "$applet")
    mkdir -p "$rootfs/$dir"
    ln -sfn /bin/busybox "$rootfs/$applet"
  done < <("$BUSYBOX" --list-full)
  [ -L "$rootfs/bin/sh" ] || ln -s /bin/busybox "$rootfs/bin/sh"
  install -d -m 1777 "$rootfs/tmp"
  install -d -m 0700 "$rootfs/root"
  install -d -m 0755 "$rootfs/etc" "$rootfs/home" "$rootfs/var" "$rootfs/proc" "$rootfs/sys" "$rootfs/dev"
  printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >"$rootfs/etc/passwd"
  printf '%s\n' 'root:x:0:' 'nobody:x:65534:' >"$rootfs/etc/group"
  chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group"
}

build_image pause populate_pause "$PAUSE_NAME" "$OUT/pause.tar" \
  --config.entrypoint /pause --config.workingdir /

build_image busybox populate_busybox "$BUSYBOX_NAME" "$OUT/busybox.tar" \
  --config.cmd sh --config.workingdir / \
  --config.env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

printf '%s\n' "$hash" >"$stamp"
log "done: $PAUSE_NAME, $BUSYBOX_NAME in $OUT"
