#!/usr/bin/env bash
# stop-containerd.sh DIR — stop what scripts/try-containerd.sh started under DIR, and only that:
#   1. containerd, by DIR/containerd.pid (TERM, then KILL after 10 s);
#   2. its shims (their cmdline has `-address DIR/containerd.sock`) and every process below them
#      (the containers), plus any other containerd/ctr/runc process whose cmdline or cwd is in DIR;
#   3. every mount under DIR (overlay rootfs, shm, netns), deepest first;
#   4. the cgroups of containers left running (named in the bundles under DIR/state), if empty;
#   5. the CNI bridge, host-local IP store and ipMasq rules of the network in DIR/cni/10-nodeagent.conflist.
# DIR itself (logs, root, state) is left for inspection.
set -uo pipefail

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
[ -d "$1" ] || { echo "no such directory: $1" >&2; exit 1; }
DIR=$(cd "$1" && pwd)
[ "$DIR" != / ] || { echo "refusing DIR=/" >&2; exit 1; }

alive() { kill -0 "$1" 2>/dev/null; }
wait_gone() { # wait_gone SECONDS PID...
  local n=$(( $1 * 10 )); shift
  while [ $n -gt 0 ]; do
    local any=
    for p in "$@"; do alive "$p" && any=1; done
    [ -z "$any" ] && return 0
    sleep 0.1; n=$((n - 1))
  done
  return 1
}

# 1. containerd
if [ -f "$DIR/containerd.pid" ]; then
  pid=$(cat "$DIR/containerd.pid")
  if alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DIR/config.toml"; then
    kill -TERM "$pid"
    wait_gone 10 "$pid" || kill -KILL "$pid" 2>/dev/null
    echo "stopped containerd pid $pid"
  fi
  rm -f "$DIR/containerd.pid"
fi

# 2. containerd/shim/runc processes whose cmdline or cwd references DIR (shims have
# `-address DIR/containerd.sock` and run in their bundle dir under DIR/state), never this script
# or its callers. Container processes live in other mount namespaces, so their own cmdline/cwd do
# not show DIR: they are found as descendants of the shims.
ancestors=" "
a=$$
while [ "$a" -gt 1 ] 2>/dev/null; do
  ancestors+="$a "
  a=$(sed 's/.*) //' /proc/"$a"/stat 2>/dev/null | cut -d' ' -f2) || break
done
refs=()
for p in /proc/[0-9]*; do
  pid=${p#/proc/}
  case "$ancestors" in *" $pid "*) continue ;; esac
  exe=$(readlink "$p/exe" 2>/dev/null) || continue
  case "${exe##*/}" in containerd*|ctr|runc) ;; *) continue ;; esac
  cmd=$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null) || continue
  cwd=$(readlink "$p/cwd" 2>/dev/null || true)
  case "$cmd" in *"$DIR/"*|*"$DIR "*) refs+=("$pid"); continue ;; esac
  case "$cwd/" in "$DIR/"*) refs+=("$pid") ;; esac
done
descendants() { # all descendants of the given pids
  local frontier=("$@") next p
  while [ ${#frontier[@]} -gt 0 ]; do
    next=()
    for p in "${frontier[@]}"; do
      for c in $(cat /proc/"$p"/task/*/children 2>/dev/null); do echo "$c"; next+=("$c"); done
    done
    frontier=("${next[@]}")
  done
}
if [ ${#refs[@]} -gt 0 ]; then
  # Shims' listening sockets (/run/containerd/s/<hash>) are not under DIR: note them to remove.
  inodes=$(for p in "${refs[@]}"; do ls -l /proc/"$p"/fd 2>/dev/null; done | sed -n 's/.*socket:\[\([0-9]*\)\]$/\1/p' | sort -u)
  socks=$(awk -v list=" $(echo "$inodes" | tr '\n' ' ') " 'NR > 1 && $8 ~ /^\/run\/containerd\/s\// && index(list, " " $7 " ") { print $8 }' /proc/net/unix | sort -u)
  mapfile -t kids < <(descendants "${refs[@]}")
  # Containers first (so shims see their exit), then the shims and anything else.
  [ ${#kids[@]} -gt 0 ] && kill -KILL "${kids[@]}" 2>/dev/null
  kill -TERM "${refs[@]}" 2>/dev/null
  wait_gone 5 "${refs[@]}" || kill -KILL "${refs[@]}" 2>/dev/null
  wait_gone 5 "${refs[@]}" "${kids[@]}"
  for s in $socks; do rm -f "$s"; done
  echo "killed ${#refs[@]} process(es) referencing $DIR and ${#kids[@]} below them"
fi

# 3. mounts under DIR, last mounted first (/proc/mounts escapes spaces as \040)
mounts=$(awk '{ print $2 }' /proc/mounts | sed 's/\\040/ /g' | grep -F -- "$DIR/" | grep -E "^$(printf '%s' "$DIR/" | sed 's/[][\.*^$/]/\\&/g')" | tac)
n=0
while IFS= read -r m; do
  [ -n "$m" ] || continue
  umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "could not unmount $m" >&2
  n=$((n + 1))
done <<<"$mounts"
[ $n -gt 0 ] && echo "unmounted $n mount(s) under $DIR"

# 4. cgroups of containers whose shim was killed (bundles left in DIR/state name them), and their
# pod-level parent when it is empty; rmdir only removes empty cgroups, never more.
ncg=0
for cfg in "$DIR"/state/io.containerd.runtime.v2.task/*/*/config.json; do
  [ -f "$cfg" ] || continue
  cg=$(grep -o '"cgroupsPath":"[^"]*"' "$cfg" | head -1 | cut -d'"' -f4)
  case "$cg" in /*) ;; *) continue ;; esac   # cgroupfs paths only (a systemd slice:prefix:name is skipped)
  for c in /sys/fs/cgroup/*/; do
    [ -d "$c${cg#/}" ] && rmdir "$c${cg#/}" 2>/dev/null && ncg=$((ncg + 1))
    [ -d "$c$(dirname "${cg#/}")" ] && rmdir "$c$(dirname "${cg#/}")" 2>/dev/null
  done
done
[ $ncg -gt 0 ] && echo "removed $ncg container cgroup folder(s)"

# 5. the CNI network of this instance (normally removed pod by pod through CRI)
conf=$DIR/cni/10-nodeagent.conflist
if [ -f "$conf" ]; then
  bridge=$(sed -n 's/.*"bridge": *"\([^"]*\)".*/\1/p' "$conf" | head -1)
  name=$(sed -n 's/^  "name": *"\([^"]*\)".*/\1/p' "$conf" | head -1)
  if [ -n "$bridge" ] && ip link show "$bridge" >/dev/null 2>&1; then ip link del "$bridge" && echo "deleted bridge $bridge"; fi
  if [ -n "$name" ]; then
    rm -rf "/var/lib/cni/networks/$name" "/var/lib/cni/results/$name"-*
    for sb in "$DIR"/state/io.containerd.grpc.v1.cri/sandboxes/*/; do
      [ -d "$sb" ] && rm -f /var/lib/cni/results/cni-loopback-"$(basename "$sb")"-lo
    done
    # ipMasq rules of pods that were never torn down: POSTROUTING jumps commented with the network name.
    if command -v iptables >/dev/null; then
      iptables -t nat -L POSTROUTING -n --line-numbers 2>/dev/null |
        awk -v n="name: \"$name\" " 'index($0, n) { print $1, $2 }' | sort -rn |
        while read -r num chain; do
          iptables -t nat -D POSTROUTING "$num" && iptables -t nat -F "$chain" && iptables -t nat -X "$chain" &&
            echo "removed masquerade chain $chain"
        done
    fi
  fi
fi
exit 0
