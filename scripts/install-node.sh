#!/usr/bin/env bash
# install-node.sh — prepare a Debian 12 (bookworm) host to run nodeagent against a real containerd.
#
#   sudo scripts/install-node.sh
#
# Idempotent: a second run finds everything in place and does nothing heavy.
#   1. apt-get install (noninteractive) the packages below; `apt-get update` only when a package
#      is missing and the lists are absent or older than a day (or the install failed on old lists).
#   2. containerd 1.7 from Debian trixie, unpacked (never installed) into /opt/nodeagent/containerd-1.7,
#      fetched with a private apt configuration under /var/cache/nodeagent/trixie; the system's apt
#      sources, preferences and package state are never modified.
# It starts no service: while it installs, a temporary policy-rc.d forbids package scripts to start
# daemons, and units of packages that this run newly installed (containerd, docker-registry) are
# disabled, so the Debian containerd does not start at the next boot either. What the user already
# had is left as it was.
#
# Environment: NODEAGENT_C17_DIR (default /opt/nodeagent/containerd-1.7),
#              NODEAGENT_CACHE   (default /var/cache/nodeagent).
set -euo pipefail

PACKAGES=(
  containerd                  # containerd 1.6 + CRI plugin, ctr, containerd-shim-runc-v2
  runc                        # the OCI runtime both containerd versions use
  containernetworking-plugins # /usr/lib/cni: bridge, host-local, portmap, loopback
  iptables                    # bridge ipMasq and portmap program iptables
  iproute2                    # ip: inspect bridges and netns in tests
  busybox-static              # the busybox image's only binary
  umoci skopeo                # build OCI images, write docker archives
  docker-registry             # a local registry on 127.0.0.1:5000 for PullImage tests
  gcc libc6-dev               # build the static pause binary
  debian-archive-keyring      # verifies the trixie release file
  openssl                     # the test API server's CA and serving certificate
  dbus-daemon systemd         # a private bus, busctl and systemd-inhibit for the logind shutdown test
  python3-dbus python3-gi     # the stand-in logind on that bus
)
C17_DIR=${NODEAGENT_C17_DIR:-/opt/nodeagent/containerd-1.7}
CACHE=${NODEAGENT_CACHE:-/var/cache/nodeagent}
TRIXIE=$CACHE/trixie
DAEMONS=(containerd docker-registry)   # packages whose postinst would start a daemon

export DEBIAN_FRONTEND=noninteractive
log() { printf 'install-node: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root"
command -v apt-get >/dev/null || die "apt-get not found: this script is for Debian 12"
if [ -r /etc/os-release ]; then
  # shellcheck disable=SC1091
  . /etc/os-release
  [ "${VERSION_CODENAME:-}" = bookworm ] || log "warning: written for Debian 12 (bookworm), this is ${PRETTY_NAME:-unknown}"
fi

did=()   # what this run changed, for the summary

is_installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }

# Lists are fresh when an update ran in the last 24 h: our own stamp (apt sets the index files'
# mtime to the server's date, not to the time of the update), or an index file written that recently.
lists_fresh() {
  local dir=$1 stamp=$2
  [ -n "$(find "$stamp" -maxdepth 0 -mmin -1440 -print 2>/dev/null)" ] && return 0
  [ -n "$(find "$dir" -maxdepth 1 -name '*_Packages*' -mmin -1440 -print -quit 2>/dev/null)" ]
}
apt_update() { # apt_update STAMP [apt options...]
  local stamp=$1; shift
  apt-get "$@" update -q
  mkdir -p "$(dirname "$stamp")" && touch "$stamp"
}

# PIDs of running processes whose executable is one of the given paths.
pids_of() {
  local p exe
  for p in /proc/[0-9]*; do
    exe=$(readlink "$p/exe" 2>/dev/null) || continue
    for want in "$@"; do
      if [ "$exe" = "$want" ]; then echo "${p#/proc/}"; fi
    done
  done
  # Success whatever the last process was: under set -e a trailing failed test would end the script.
  return 0
}

# ---------------------------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------------------------
missing=()
for p in "${PACKAGES[@]}"; do is_installed "$p" || missing+=("$p"); done

if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  newly_daemons=()
  for d in "${DAEMONS[@]}"; do is_installed "$d" || newly_daemons+=("$d"); done
  before_pids=$(pids_of /usr/bin/containerd /usr/bin/docker-registry | sort)

  # Forbid maintainer scripts to start services while we install (invoke-rc.d and
  # deb-systemd-invoke both honour policy-rc.d). Any existing policy is put back afterwards.
  policy=/usr/sbin/policy-rc.d
  policy_saved=
  if [ -e "$policy" ]; then policy_saved=$(mktemp /usr/sbin/.policy-rc.d.nodeagent.XXXXXX); cp -p "$policy" "$policy_saved"; fi
  restore_policy() {
    if [ -n "$policy_saved" ]; then mv -f "$policy_saved" "$policy"; else rm -f "$policy"; fi
  }
  trap restore_policy EXIT
  printf '#!/bin/sh\n# written by nodeagent install-node.sh for the duration of its apt-get install\nexit 101\n' >"$policy"
  chmod 755 "$policy"

  if ! lists_fresh /var/lib/apt/lists "$CACHE/apt-update.stamp"; then
    log "apt lists absent or older than a day: apt-get update"
    apt_update "$CACHE/apt-update.stamp"
    did+=("apt-get update")
  fi
  if ! apt-get install -y -q --no-install-recommends "${missing[@]}"; then
    log "install failed, retrying after apt-get update"
    apt_update "$CACHE/apt-update.stamp"
    apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  restore_policy
  trap - EXIT
  did+=("installed ${missing[*]}")

  # Packages that this run installed for the first time: keep their daemons from starting at boot.
  for d in "${newly_daemons[@]}"; do
    is_installed "$d" || continue
    if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
      if systemctl disable --quiet "$d.service" 2>/dev/null; then did+=("disabled $d.service (newly installed)"); fi
    elif [ -x "/etc/init.d/$d" ] && command -v update-rc.d >/dev/null; then
      if update-rc.d "$d" disable >/dev/null 2>&1; then did+=("disabled init script $d (newly installed)"); fi
    fi
  done

  # Belt and braces: a daemon that was not running before the install must not be running now.
  after_pids=$(pids_of /usr/bin/containerd /usr/bin/docker-registry | sort)
  for pid in $(comm -13 <(echo "$before_pids") <(echo "$after_pids")); do
    log "stopping daemon started by the package install: pid $pid ($(readlink /proc/"$pid"/exe 2>/dev/null))"
    kill -TERM "$pid" 2>/dev/null || true
    did+=("stopped pid $pid")
  done
else
  log "Debian packages already installed"
fi

# ---------------------------------------------------------------------------------------------
# 2. containerd 1.7 from trixie, unpacked into $C17_DIR/bin
# ---------------------------------------------------------------------------------------------
c17_ok() {
  local b
  for b in containerd containerd-shim-runc-v2 ctr; do [ -x "$C17_DIR/bin/$b" ] || return 1; done
  "$C17_DIR/bin/containerd" --version 2>/dev/null | grep -q ' 1\.7\.'
}

if c17_ok; then
  log "containerd 1.7 already in $C17_DIR"
else
  log "fetching containerd 1.7 from Debian trixie into $C17_DIR"
  mkdir -p "$TRIXIE/lists/partial" "$TRIXIE/cache/archives/partial" "$TRIXIE/dl"

  # Use the same mirror as the system's own Debian source (the one serving bookworm's main).
  # shellcheck disable=SC2016 # $(…) here are apt's format fields, not shell
  mirror=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME) $(TARGET_OF)' 2>/dev/null |
    awk '$2 == "bookworm" && $3 == "deb" && $1 !~ /security/ { print $1; exit }')
  mirror=${mirror:-http://deb.debian.org/debian/}
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'deb [signed-by=%s] %s trixie main\n' "$keyring" "${mirror%/}" >"$TRIXIE/sources.list"

  # A private apt: own sources, lists, caches and preferences; the system's are never touched.
  APT_PRIVATE=(
    -o "Dir::Etc::SourceList=$TRIXIE/sources.list"
    -o "Dir::Etc::SourceParts=/dev/null"
    -o "Dir::State::Lists=$TRIXIE/lists"
    -o "Dir::Cache=$TRIXIE/cache"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=/dev/null"
  )
  deb=$(ls -t "$TRIXIE"/dl/containerd_1.7.*_amd64.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    if ! lists_fresh "$TRIXIE/lists" "$TRIXIE/update.stamp"; then
      apt_update "$TRIXIE/update.stamp" "${APT_PRIVATE[@]}"
      did+=("apt-get update (private trixie lists)")
    fi
    # apt downloads as the _apt user: give it the folder so the download stays sandboxed.
    if id _apt >/dev/null 2>&1; then chown _apt:root "$TRIXIE/dl"; fi
    (cd "$TRIXIE/dl" && apt-get "${APT_PRIVATE[@]}" download -q containerd)
    deb=$(ls -t "$TRIXIE"/dl/containerd_*_amd64.deb 2>/dev/null | head -1 || true)
    [ -n "$deb" ] || die "apt-get download containerd (trixie) produced no .deb"
  fi
  version=$(dpkg-deb -f "$deb" Version)
  case $version in 1.7.*) ;; *) die "trixie containerd is $version, expected 1.7.x ($deb)";; esac

  x=$(mktemp -d "$TRIXIE/x.XXXXXX")
  dpkg-deb -x "$deb" "$x"
  mkdir -p "$C17_DIR/bin"
  for b in containerd containerd-shim-runc-v2 ctr; do
    install -m 0755 "$x/usr/bin/$b" "$C17_DIR/bin/.$b.new"
    mv -f "$C17_DIR/bin/.$b.new" "$C17_DIR/bin/$b"
  done
  printf '%s\n' "$version" >"$C17_DIR/VERSION"
  rm -rf "$x"
  c17_ok || die "containerd 1.7 in $C17_DIR does not run"
  did+=("containerd $version unpacked into $C17_DIR")
fi

# ---------------------------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------------------------
ver() { "$@" 2>/dev/null | head -1 || echo "?"; }
echo "nodeagent node install:"
if [ ${#did[@]} -eq 0 ]; then echo "  changes:        none (already installed)"; else
  for d in "${did[@]}"; do echo "  changed:        $d"; done; fi
echo "  containerd 1.6: $(ver /usr/bin/containerd --version)"
echo "  containerd 1.7: $(ver "$C17_DIR/bin/containerd" --version)"
echo "  runc:           $(ver runc --version)"
echo "  cni plugins:    /usr/lib/cni ($(dpkg-query -W -f='${Version}' containernetworking-plugins))"
echo "  busybox:        $(dpkg-query -W -f='${Version}' busybox-static), umoci $(dpkg-query -W -f='${Version}' umoci), skopeo $(dpkg-query -W -f='${Version}' skopeo)"
running=$(pids_of /usr/bin/containerd /usr/bin/docker-registry | tr '\n' ' ')
echo "  system daemons: ${running:-none running} (this script starts none)"
