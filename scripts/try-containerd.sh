#!/usr/bin/env bash
# try-containerd.sh VERSION DIR [BRIDGE SUBNET] — dev aid: start a private containerd (1.6 = Debian's
# /usr/bin, 1.7 = /opt/nodeagent/containerd-1.7/bin) with everything under DIR, and import the
# nodeagent images into its k8s.io namespace.
#
#   DIR/config.toml  DIR/cni/10-nodeagent.conflist  DIR/root  DIR/state
#   DIR/containerd.sock  DIR/containerd.log  DIR/containerd.pid
#
# BRIDGE/SUBNET default to na16br0 10.88.16.0/24 (1.6) and na17br0 10.88.17.0/24 (1.7), so that both
# can run side by side. Images come from scripts/build-images.sh into $NODEAGENT_IMAGES
# (default /var/cache/nodeagent/images). Stop with scripts/stop-containerd.sh DIR.
set -euo pipefail

[ $# -eq 2 ] || [ $# -eq 4 ] || { echo "usage: $0 1.6|1.7 DIR [BRIDGE SUBNET]" >&2; exit 2; }
VERSION=$1
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUN=${BUN:-$REPO/node_modules/.bin/bun}
IMAGES=${NODEAGENT_IMAGES:-/var/cache/nodeagent/images}
case $VERSION in
  1.6) BIN=/usr/bin;                        BRIDGE=${3:-na16br0}; SUBNET=${4:-10.88.16.0/24} ;;
  1.7) BIN=/opt/nodeagent/containerd-1.7/bin; BRIDGE=${3:-na17br0}; SUBNET=${4:-10.88.17.0/24} ;;
  *) echo "VERSION must be 1.6 or 1.7" >&2; exit 2 ;;
esac
[ -x "$BIN/containerd" ] || { echo "no $BIN/containerd: run scripts/install-node.sh" >&2; exit 1; }
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
SOCK=$DIR/containerd.sock
CTR=("$BIN/ctr" --address "$SOCK" -n k8s.io)

if [ -f "$DIR/containerd.pid" ] && kill -0 "$(cat "$DIR/containerd.pid")" 2>/dev/null; then
  echo "containerd already running for $DIR (pid $(cat "$DIR/containerd.pid")); stop it with scripts/stop-containerd.sh" >&2
  exit 1
fi

"$REPO/scripts/build-images.sh" "$IMAGES"

mkdir -p "$DIR/root" "$DIR/state" "$DIR/cni"
ROOT=$DIR/root STATE=$DIR/state SOCK=$SOCK CNI=$DIR/cni BRIDGE=$BRIDGE SUBNET=$SUBNET \
  "$BUN" -e "
    import { containerdConfigToml, bridgeCniConflist } from '$REPO/src/cri/containerd-config.ts';
    const e = process.env;
    await Bun.write(e.CNI + '/../config.toml', containerdConfigToml({ root: e.ROOT!, state: e.STATE!, socket: e.SOCK!,
      sandboxImage: 'localhost/nodeagent/pause:1.0', cniConfDir: e.CNI! }));
    await Bun.write(e.CNI + '/10-nodeagent.conflist', bridgeCniConflist({ name: 'nodeagent-' + e.BRIDGE, bridge: e.BRIDGE!, subnet: e.SUBNET! }));
  "

# The shim is found through PATH: put this version's shim first so 1.7 never runs 1.6's shim.
PATH="$BIN:$PATH" setsid "$BIN/containerd" --config "$DIR/config.toml" </dev/null >"$DIR/containerd.log" 2>&1 &
echo $! >"$DIR/containerd.pid"

for _ in $(seq 1 100); do
  "${CTR[@]}" version >/dev/null 2>&1 && break
  kill -0 "$(cat "$DIR/containerd.pid")" 2>/dev/null || { echo "containerd exited, see $DIR/containerd.log:" >&2; tail -20 "$DIR/containerd.log" >&2; exit 1; }
  sleep 0.1
done
"${CTR[@]}" version >/dev/null || { echo "containerd did not answer on $SOCK" >&2; exit 1; }
echo "containerd $VERSION running: pid $(cat "$DIR/containerd.pid"), socket $SOCK, bridge $BRIDGE $SUBNET"

for image in pause busybox; do "${CTR[@]}" images import "$IMAGES/$image.tar"; done
"${CTR[@]}" images ls
