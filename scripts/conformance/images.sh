#!/usr/bin/env bash
# images.sh — the images upstream's [NodeConformance] e2e tests (test/e2e/common of Kubernetes 1.36) run,
# under the exact names `e2e.test --list-images` gives, built offline from Debian packages, this repo's
# pause (images/pause/pause.c) and an agnhost binary built from the same Kubernetes tree, and imported
# into a containerd's k8s.io namespace. With no registry to pull from, the pods (IfNotPresent) find them
# there. Safe to run twice: the archives are rebuilt only when an input changed, and importing again
# replaces an image by the same one.
#
#   images.sh --agnhost FILE [--out DIR] [--address SOCKET [--ctr CTR]] [--e2e-test FILE]
#
#   --agnhost FILE   the agnhost binary, built elsewhere (its path comes from the caller)
#   --out DIR        where the docker-archive tarballs and the .deb downloads are kept
#                    (default <repo>/.cache/conformance-images)
#   --address SOCKET import every image into the containerd answering on SOCKET (else only build)
#   --ctr CTR        the ctr of that containerd (default: ctr on PATH)
#   --e2e-test FILE  check that every name made here is one the e2e.test binary lists (--list-images),
#                    so that a Kubernetes tree whose image versions moved fails here and not in a test
#
# The images, each one layer (umoci), written as docker archives whose RepoTags carry the name (skopeo):
#   registry.k8s.io/pause:3.10.2                       /pause (images/pause/pause.c), user 65535, as upstream
#   registry.k8s.io/e2e-test-images/busybox:1.37.0-1   Debian's busybox-static with its applets, the
#                                                      busybox image's /etc/passwd and /etc/group
#   registry.k8s.io/e2e-test-images/agnhost:2.63.0     /agnhost (entrypoint, cmd pause) on the busybox
#   registry.k8s.io/e2e-test-images/agnhost:2.55       root, with Debian's curl (the lifecycle-hook and
#                                                      networking tests curl from it), /uploads, the user
#                                                      1000 and group 50000 of upstream's image
#   registry.k8s.io/e2e-test-images/nonroot:1.5        the busybox root with USER 1234, as upstream
#   registry.k8s.io/e2e-test-images/nonewprivs:1.4     the busybox root with a setuid-root nnp on PATH
#                                                      that prints "Effective uid: N" (agnhost nonewprivs)
#   registry.k8s.io/e2e-test-images/glibc-dns-testing:2.0.0  the busybox root with Debian's hostname (glibc's
#                                                      resolver: `hostname -f` reads /etc/hosts) as upstream's
#                                                      Debian image has it (the hostnameOverride tests)
# Needs: root, gcc, umoci, skopeo, busybox-static, apt-get (Debian's archive, for curl).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
AGNHOST= OUT=$REPO/.cache/conformance-images ADDRESS= CTR=ctr E2E_TEST=
while [ $# -gt 0 ]; do
  case $1 in
    --agnhost) AGNHOST=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --address) ADDRESS=$2; shift 2 ;;
    --ctr) CTR=$2; shift 2 ;;
    --e2e-test) E2E_TEST=$2; shift 2 ;;
    *) echo "usage: $0 --agnhost FILE [--out DIR] [--address SOCKET [--ctr CTR]] [--e2e-test FILE]" >&2; exit 2 ;;
  esac
done
log() { printf 'conformance-images: %s\n' "$*" >&2; }
# shellcheck source=../oci-image.sh
. "$REPO/scripts/oci-image.sh"
[ -n "$AGNHOST" ] && [ -x "$AGNHOST" ] || { log "--agnhost FILE (an executable agnhost) is required"; exit 2; }
[ "$(id -u)" = 0 ] || { log "must run as root (umoci unpack keeps file owners; the setuid bit)"; exit 1; }
for tool in gcc umoci skopeo sha256sum apt-get dpkg-deb ldconfig openssl; do
  command -v "$tool" >/dev/null || { log "missing $tool (scripts/install-node.sh installs gcc, umoci, skopeo)"; exit 1; }
done
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || { log "missing $BUSYBOX: apt-get install busybox-static"; exit 1; }

PAUSE=registry.k8s.io/pause:3.10.2
R=registry.k8s.io/e2e-test-images
BUSYBOX_IMG=$R/busybox:1.37.0-1
AGNHOST_IMGS=("$R/agnhost:2.63.0" "$R/agnhost:2.55")
NONROOT=$R/nonroot:1.5
NONEWPRIVS=$R/nonewprivs:1.4
GLIBC=$R/glibc-dns-testing:2.0.0
ALL=("$PAUSE" "$BUSYBOX_IMG" "${AGNHOST_IMGS[@]}" "$NONROOT" "$NONEWPRIVS" "$GLIBC")
# Debian packages unpacked into images, with what they depend on (libc6 and the rest of the closure).
# For agnhost: the tools of upstream's Alpine-based image that the tests run.
CURL_PKGS=(curl bash netcat-openbsd)
GLIBC_PKGS=(hostname)

if [ -n "$E2E_TEST" ]; then
  listed=$("$E2E_TEST" --list-images 2>/dev/null) || { log "$E2E_TEST --list-images failed"; exit 1; }
  for name in "${ALL[@]}"; do
    grep -qxF "$name" <<<"$listed" || { log "$name is not among the images $E2E_TEST lists: the tree's image versions moved; update this script"; exit 1; }
  done
fi

mkdir -p "$OUT/debs"
OUT=$(cd "$OUT" && pwd)
PAUSE_SRC=$REPO/images/pause/pause.c

# The closure of a package's Depends/Pre-Depends as Debian resolves it here, downloaded once into
# $OUT/debs (apt-get download keeps the archive's file names, so a second run finds them).
debs_for() {
  local pkgs
  pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances "$@" |
    grep '^[a-z0-9]' | sort -u)
  [ -n "$pkgs" ] || { log "apt-cache knows none of: $* (run apt-get update)"; return 1; }
  local missing=() p
  for p in $pkgs; do compgen -G "$OUT/debs/${p}_*.deb" >/dev/null || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    (cd "$OUT/debs" && apt-get download -q -o APT::Sandbox::User=root "${missing[@]}" >&2) || { log "apt-get download ${missing[*]} failed (apt-get update first?)"; return 1; }
  fi
  for p in $pkgs; do ls "$OUT/debs/${p}"_*.deb | tail -1; done
}

CURL_DEBS=$(debs_for "${CURL_PKGS[@]}")
GLIBC_DEBS=$(debs_for "${GLIBC_PKGS[@]}")

stamp=$OUT/.images.stamp
hash=$( (cat "${BASH_SOURCE[0]}" "$REPO/scripts/oci-image.sh" "$PAUSE_SRC" "$BUSYBOX" "$AGNHOST"; echo "$CURL_DEBS $GLIBC_DEBS") | sha256sum | cut -d' ' -f1)
archive() { printf '%s/%s.tar' "$OUT" "$(printf '%s' "$1" | tr '/:' '__')"; }
fresh=1
for name in "${ALL[@]}"; do [ -f "$(archive "$name")" ] || fresh=; done
[ "$(cat "$stamp" 2>/dev/null)" = "$hash" ] || fresh=

if [ -n "$fresh" ]; then
  log "up to date in $OUT"
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/conformance-images.XXXXXX")
  trap 'rm -rf "$WORK"' EXIT
  LAYOUT=$WORK/oci
  umoci init --layout "$LAYOUT"

  # build_image NAME POPULATE_FN [umoci config args...]: one layer that POPULATE_FN ROOTFS fills (oci-image.sh).
  build_image() {
    local name=$1 populate=$2 outfile
    shift 2
    outfile=$(archive "$name")
    oci_image "$LAYOUT" "$WORK" "$(printf '%s' "$name" | tr '/:.' '___')" "$populate" "$name" "$outfile" "nodeagent scripts/conformance/images.sh" "$@"
    log "built $name ($(du -h "$outfile" | cut -f1))"
  }

  populate_pause() {
    gcc -static -Os -Wall -Wextra -Werror -o "$1/pause" "$PAUSE_SRC"
    strip "$1/pause"
  }

  # busybox-static with a link per applet where busybox puts it and in /bin, and the users and groups of the
  # busybox image the tests were written against (nobody 65534; no user 1000).
  populate_busybox() {
    local rootfs=$1 applet
    install -D -m 0755 "$BUSYBOX" "$rootfs/bin/busybox"
    while read -r applet; do
      [ -z "$applet" ] || [ "$applet" = bin/busybox ] && continue
      mkdir -p "$rootfs/$(dirname "$applet")"
      ln -sfn /bin/busybox "$rootfs/$applet"
      # the busybox image has every applet in /bin too (the sysctl test runs /bin/sysctl)
      [ -e "$rootfs/bin/${applet##*/}" ] || ln -s /bin/busybox "$rootfs/bin/${applet##*/}"
    done < <("$BUSYBOX" --list-full)
    install -d -m 1777 "$rootfs/tmp"
    install -d -m 0700 "$rootfs/root"
    install -d -m 0755 "$rootfs/etc" "$rootfs/home" "$rootfs/var" "$rootfs/var/www" "$rootfs/proc" "$rootfs/sys" "$rootfs/dev"
    printf '%s\n' root:x:0:0:root:/root:/bin/sh daemon:x:1:1:daemon:/usr/sbin:/bin/false bin:x:2:2:bin:/bin:/bin/false \
      sys:x:3:3:sys:/dev:/bin/false sync:x:4:100:sync:/bin:/bin/sync mail:x:8:8:mail:/var/spool/mail:/bin/false \
      www-data:x:33:33:www-data:/var/www:/bin/false operator:x:37:37:Operator:/var:/bin/false \
      nobody:x:65534:65534:nobody:/home:/bin/false >"$rootfs/etc/passwd"
    printf '%s\n' root:x:0: daemon:x:1: bin:x:2: sys:x:3: adm:x:4: tty:x:5: disk:x:6: lp:x:7: mail:x:8: kmem:x:9: \
      wheel:x:10:root cdrom:x:11: dialout:x:18: floppy:x:19: video:x:28: audio:x:29: tape:x:32: www-data:x:33: \
      operator:x:37: utmp:x:43: plugdev:x:46: staff:x:50: lock:x:54: netdev:x:82: users:x:100: nogroup:x:65534: >"$rootfs/etc/group"
    chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group"
  }

  # Debian packages unpacked over a root (dpkg -x: files only, no maintainer scripts), and the loader's
  # cache for their libraries.
  unpack_debs() {
    local rootfs=$1 deb
    shift
    for deb in "$@"; do dpkg-deb -x "$deb" "$rootfs"; done
    ldconfig -r "$rootfs" 2>/dev/null || true
  }

  populate_agnhost() {
    local rootfs=$1
    populate_busybox "$rootfs"
    # shellcheck disable=SC2086
    unpack_debs "$rootfs" $CURL_DEBS
    chroot "$rootfs" /usr/bin/curl --version >/dev/null || { log "curl does not run in the agnhost root"; return 1; }
    chroot "$rootfs" /bin/bash -c true || { log "bash does not run in the agnhost root"; return 1; }
    # the link update-alternatives makes on a Debian system, and over busybox's nc wherever PATH finds it
    ln -sf /bin/nc.openbsd "$rootfs/bin/nc"
    ln -sf /bin/nc.openbsd "$rootfs/usr/bin/nc"
    # Debian's busybox sh runs its own applets before PATH (a standalone shell), so `sh -c '… | nc -u'`
    # got busybox's nc, which has no -u, whatever the links; upstream's Alpine sh does not. bash is sh here.
    ln -sf bash "$rootfs/bin/sh"
    chroot "$rootfs" /bin/sh -c 'nc -h 2>&1' | grep -q 'OpenBSD netcat' || { log "OpenBSD's nc is not the nc sh runs in the agnhost root"; return 1; }
    install -m 0755 "$AGNHOST" "$rootfs/agnhost"
    ln -s agnhost "$rootfs/agnhost-2"
    install -d -m 0755 "$rootfs/uploads"
    # upstream's image carries a localhost key pair (test/images/agnhost/porter) that netexec --tls-*
    # serves for the https hook and probe tests; nothing checks it, so one made here does the same
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$rootfs/localhost.key" -out "$rootfs/localhost.crt" -days 3650 \
      -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
    chmod 0644 "$rootfs/localhost.key" "$rootfs/localhost.crt"
    echo 'user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh' >>"$rootfs/etc/passwd"
    printf '%s\n' user-defined-in-image:x:1000: group-defined-in-image:x:50000:user-defined-in-image >>"$rootfs/etc/group"
    install -d -m 0755 -o 1000 -g 1000 "$rootfs/home/user-defined-in-image"
  }

  populate_nonewprivs() {
    local rootfs=$1
    populate_busybox "$rootfs"
    # agnhost's nonewprivs prints the effective uid as upstream's nnp does; setuid root like nnp, so that
    # a container run as uid 1000 prints 0 unless no_new_privs (allowPrivilegeEscalation: false) is set.
    install -D -m 4755 -o 0 -g 0 "$AGNHOST" "$rootfs/usr/local/bin/agnhost"
  }

  populate_glibc() {
    local rootfs=$1
    populate_busybox "$rootfs"
    rm -f "$rootfs/bin/hostname" # busybox's applet; Debian's hostname replaces it
    # shellcheck disable=SC2086
    unpack_debs "$rootfs" $GLIBC_DEBS
    printf '%s\n' 'passwd: files' 'group: files' 'hosts: files dns' 'networks: files' >"$rootfs/etc/nsswitch.conf"
    chroot "$rootfs" /bin/hostname --version >/dev/null 2>&1 || { log "Debian's hostname does not run in the glibc-dns-testing root"; return 1; }
  }

  PATHENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  build_image "$PAUSE" populate_pause --config.entrypoint /pause --config.user 65535:65535 --config.workingdir /
  build_image "$BUSYBOX_IMG" populate_busybox --config.cmd sh --config.workingdir / --config.env "$PATHENV"
  build_image "${AGNHOST_IMGS[0]}" populate_agnhost --config.entrypoint /agnhost --config.cmd pause --config.workingdir / --config.env "$PATHENV" \
    --config.exposedports 80/tcp --config.exposedports 8080/tcp --config.exposedports 8081/tcp --config.exposedports 9376/tcp --config.exposedports 5000/tcp
  # the previous agnhost the pod-lifecycle test moves from is the same image under its other name
  for name in "${AGNHOST_IMGS[@]:1}"; do
    skopeo copy --quiet "oci:$LAYOUT:$(printf '%s' "${AGNHOST_IMGS[0]}" | tr '/:.' '___')" "docker-archive:$(archive "$name").new:$name"
    mv -f "$(archive "$name").new" "$(archive "$name")"
  done
  build_image "$NONROOT" populate_busybox --config.cmd sh --config.user 1234 --config.workingdir / --config.env "$PATHENV"
  build_image "$NONEWPRIVS" populate_nonewprivs --config.cmd /usr/local/bin/agnhost --config.cmd nonewprivs --config.workingdir / --config.env "$PATHENV"
  build_image "$GLIBC" populate_glibc --config.cmd sh --config.workingdir / --config.env "$PATHENV"
  printf '%s\n' "$hash" >"$stamp"
fi

if [ -n "$ADDRESS" ]; then
  for name in "${ALL[@]}"; do
    "$CTR" --address "$ADDRESS" -n k8s.io images import "$(archive "$name")" >/dev/null || { log "importing $name into $ADDRESS failed"; exit 1; }
  done
  have=$("$CTR" --address "$ADDRESS" -n k8s.io images ls -q)
  for name in "${ALL[@]}"; do
    grep -qxF "$name" <<<"$have" || { log "$name is not in $ADDRESS after the import"; exit 1; }
  done
  log "imported ${#ALL[@]} images into $ADDRESS"
fi
