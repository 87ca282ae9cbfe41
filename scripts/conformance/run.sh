#!/usr/bin/env bash
# run.sh — upstream's node conformance tests (e2e.test --ginkgo.focus '\[NodeConformance\]', less [Serial],
# [Disruptive], [Slow] and Feature:) against a Kubernetes control plane with ONE node: nodeagent, or the
# real kubelet as the control run, on this host, a containerd of its own and the images of images.sh.
# See docs/conformance.md. Everything it starts it stops by PID at the end, also on error or Ctrl-C.
#
#   KUBE_BIN=DIR NODE=nodeagent|kubelet scripts/conformance/run.sh      (or: make conformance KUBE_BIN=DIR NODE=...)
#
# KUBE_BIN     built Kubernetes binaries: e2e.test, agnhost, kube-apiserver, kube-controller-manager,
#              kube-scheduler, kubectl, etcd/usr/bin/etcd (or etcd on PATH), and kubelet for NODE=kubelet
# NODE         nodeagent (default) or kubelet
# NODEAGENT    the nodeagent binary (default dist/nodeagent)
# OUT          results (default .cache/conformance/NODE): results.txt (PASS/FAIL/SKIP name), failures.txt,
#              junit.xml, reruns.txt, tests.txt (what was planned), shard-K/ (e2e.test log and reports), logs/
# RUN_DIR      the run's state, removed at the start (default /tmp/nodeagent-conformance-NODE)
# SHARDS       e2e.test processes at once, each with its share of the tests (default 4)
# SHARD        run only shard K of SHARDS (1-based), e.g. to repeat one
# FOCUS        a regular expression a test's full name must also match, e.g. FOCUS='Downward API' (with
#              FOCUS the run is usually SHARDS=1)
# RERUN        1 (default): each failed test is run once more, alone, after the shards; results.txt has
#              its last result, reruns.txt both (FAIL -> PASS is a flake)
# CONTAINERD   containerd binary, its ctr and shim beside it (default /opt/nodeagent/containerd-1.7/bin/containerd)
# E2E_ARGS     more e2e.test arguments; KEEP=1 leaves everything running (for a look; stop with KEEP=0 ... down)
# Ports and names (change them to run beside another cluster): API_PORT 16443, ETCD_PORT 22379,
# KCM_PORT 22267, SCHED_PORT 22268, NODE_PORT 20250 (the node's API), HEALTHZ_PORT 20248 (kubelet),
# NODE_NAME conformance-node, NODE_IP 10.191.0.1 (a veth NODE_IFACE naconf0 of this host holds it: the
# kubelet refuses a loopback node IP), POD_CIDR 10.190.0.0/24 on bridge naconfbr0, CGROUP_ROOT /nodeagent-conformance.
set -euo pipefail

# All of it in one function, read whole before it runs: editing this file during a run cannot change the run.
main() {

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$REPO/scripts/conformance
BUN=${BUN:-$REPO/node_modules/.bin/bun}
KUBE_BIN=$(cd "${KUBE_BIN:?KUBE_BIN: the folder of built Kubernetes binaries (see docs/conformance.md)}" && pwd)
NODE=${NODE:-nodeagent}
NODEAGENT=${NODEAGENT:-$REPO/dist/nodeagent}
OUT=${OUT:-$REPO/.cache/conformance/$NODE}
RUN_DIR=${RUN_DIR:-/tmp/nodeagent-conformance-$NODE}
SHARDS=${SHARDS:-4} SHARD=${SHARD:-} FOCUS=${FOCUS:-} RERUN=${RERUN:-1} KEEP=${KEEP:-0}
CONTAINERD=${CONTAINERD:-/opt/nodeagent/containerd-1.7/bin/containerd}
export API_PORT=${API_PORT:-16443} ETCD_PORT=${ETCD_PORT:-22379} KCM_PORT=${KCM_PORT:-22267} SCHED_PORT=${SCHED_PORT:-22268}
NODE_PORT=${NODE_PORT:-20250} HEALTHZ_PORT=${HEALTHZ_PORT:-20248}
export NODE_NAME=${NODE_NAME:-conformance-node} NODE_IP=${NODE_IP:-10.191.0.1} KUBE_BIN
NODE_IFACE=${NODE_IFACE:-naconf0} POD_CIDR=${POD_CIDR:-10.190.0.0/24} BRIDGE=${BRIDGE:-naconfbr0}
CGROUP_ROOT=${CGROUP_ROOT:-/nodeagent-conformance}
E2E_ARGS=${E2E_ARGS:-}
FOCUS_RE='\[NodeConformance\]'
SKIP_RE='\[Serial\]|\[Disruptive\]|\[Slow\]|Feature:'

E2E=$KUBE_BIN/e2e.test KUBECTL=$KUBE_BIN/kubectl
CD=$RUN_DIR/containerd CP=$RUN_DIR/control-plane ND=$RUN_DIR/node
SOCK=$CD/containerd.sock CTR=$(dirname "$CONTAINERD")/ctr
ADMIN=$CP/admin.kubeconfig
started=$(date +%s)
log() { printf '%s conformance: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$OUT/run.log" >&2; }
die() { log "$*"; exit 1; }

# --- checks: everything missing is said before anything starts -------------------------------------
[ "$(id -u)" = 0 ] || { echo "run as root (containerd, cgroups, mounts)" >&2; exit 1; }
missing=()
for b in e2e.test agnhost kube-apiserver kube-controller-manager kube-scheduler kubectl; do [ -x "$KUBE_BIN/$b" ] || missing+=("$KUBE_BIN/$b"); done
case $NODE in
  kubelet) [ -x "$KUBE_BIN/kubelet" ] || missing+=("$KUBE_BIN/kubelet") ;;
  nodeagent) [ -x "$NODEAGENT" ] || missing+=("$NODEAGENT (make build)") ;;
  *) echo "NODE must be nodeagent or kubelet" >&2; exit 2 ;;
esac
[ -x "$CONTAINERD" ] && [ -x "$CTR" ] || missing+=("$CONTAINERD and its ctr (make node)")
[ -x "$BUN" ] || missing+=("$BUN (make deps)")
[ ${#missing[@]} -eq 0 ] || { printf 'missing: %s\n' "${missing[@]}" >&2; exit 1; }
if [ -n "$SHARD" ] && ! { [ "$SHARD" -ge 1 ] && [ "$SHARD" -le "$SHARDS" ]; } 2>/dev/null; then echo "SHARD must be 1..$SHARDS" >&2; exit 2; fi

# --- tear-down, by PID and by what this run made -------------------------------------------------------
stop_pid() { # file: SIGTERM the process it names, SIGKILL after 15 s
  local p
  p=$(cat "$1" 2>/dev/null) || return 0
  rm -f "$1"
  kill "$p" 2>/dev/null || return 0
  for _ in $(seq 75); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$p" 2>/dev/null || true
}
teardown() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [ "$KEEP" = 1 ]; then
    log "KEEP=1: left running (control plane $ADMIN, containerd $SOCK, node pid $(cat "$ND/node.pid" 2>/dev/null)); stop with: KEEP=0 $0 down"
    return $rc
  fi
  log "tearing down"
  for f in "$RUN_DIR"/e2e-*.pid; do [ -e "$f" ] && stop_pid "$f"; done
  stop_pid "$ND/node.pid"
  # containerd, its shims and the containers under them, the mounts under its folder (rootfs, netns,
  # shm), the CNI bridge and its leases and masquerade rules (scripts/stop-containerd.sh)
  [ -d "$CD" ] && bash "$REPO/scripts/stop-containerd.sh" "$CD" >>"$OUT/run.log" 2>&1
  # the node's volume mounts (secrets, configMaps, emptyDirs in memory, projected tokens)
  awk '{ print $2 }' /proc/mounts | sed 's/\\040/ /g' | grep -F -- "$RUN_DIR/" | tac | while IFS= read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  # the pods' cgroups, deepest first, in every hierarchy; the node's own root last
  for h in /sys/fs/cgroup/*/; do
    [ -d "$h${CGROUP_ROOT#/}" ] && find "$h${CGROUP_ROOT#/}" -depth -type d -exec rmdir {} + 2>/dev/null
  done
  [ -d "/sys/fs/cgroup/unified${CGROUP_ROOT}" ] && rmdir "/sys/fs/cgroup/unified${CGROUP_ROOT}" 2>/dev/null
  [ -d "$CP" ] && bash "$HERE/control-plane.sh" down "$CP"
  ip link show "$NODE_IFACE" >/dev/null 2>&1 && ip link del "$NODE_IFACE"
  log "stopped everything (run took $(( ($(date +%s) - started) / 60 )) min)"
  return $rc
}

if [ "${1:-}" = down ]; then mkdir -p "$OUT"; teardown; exit 0; fi

# --- start ---------------------------------------------------------------------------------------------
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# Results of an earlier run in OUT are replaced; logs of the previous run are kept as logs.prev.
rm -rf "$OUT/logs.prev" "$OUT"/shard-* "$OUT/rerun" "$OUT"/{results,failures,reruns,tests}.txt "$OUT/junit.xml"
[ -d "$OUT/logs" ] && mv "$OUT/logs" "$OUT/logs.prev"
mkdir -p "$OUT/logs"
: >"$OUT/run.log"
if [ -e "$RUN_DIR" ]; then
  # a previous run's leftovers: stop them first (its pid files), then start clean
  log "stopping what a previous run left in $RUN_DIR"
  KEEP=0 teardown || true
  set -e
fi
rm -rf "$RUN_DIR"
mkdir -p "$CD/cni" "$CD/root" "$CD/state" "$CP" "$ND"
trap teardown EXIT INT TERM
log "node $NODE, binaries $KUBE_BIN ($("$E2E" --version 2>/dev/null | head -1 || true)), results in $OUT, state in $RUN_DIR"

# The tests, from a dry run of the suite with the focus and skip (and FOCUS), in the suite's order.
"$E2E" --ginkgo.dry-run --ginkgo.no-color --ginkgo.focus "$FOCUS_RE" --ginkgo.skip "$SKIP_RE" \
  --ginkgo.json-report "$OUT/dry-run.json" >"$OUT/logs/dry-run.log" 2>&1 ||
  [ -s "$OUT/dry-run.json" ] || die "the dry run failed: $OUT/logs/dry-run.log"
"$BUN" "$HERE/results.ts" specs "$OUT/dry-run.json" "$FOCUS" >"$OUT/tests.txt"
total=$(wc -l <"$OUT/tests.txt")
[ "$total" -gt 0 ] || die "no test matches (FOCUS=$FOCUS)"
log "$total tests"

# The control plane.
bash "$HERE/control-plane.sh" up "$CP" >/dev/null || die "control plane did not start: $CP/*.log"
log "control plane up on https://127.0.0.1:$API_PORT"

# The node's address, on an interface of this host that leads nowhere (one end of a veth pair whose
# other end is in no namespace and has no address; the dummy driver may be missing), so nothing leaves it.
ip link show "$NODE_IFACE" >/dev/null 2>&1 || ip link add "$NODE_IFACE" type veth peer name "${NODE_IFACE}p"
ip addr replace "$NODE_IP/32" dev "$NODE_IFACE"
ip link set "${NODE_IFACE}p" up
ip link set "$NODE_IFACE" up

# containerd: its own root, state, socket and CNI bridge (the layout of scripts/try-containerd.sh, so
# that scripts/stop-containerd.sh stops it), the pause image as sandbox, and the runtime handler
# "test-handler" that upstream's RuntimeClass tests expect to be configured.
ROOT=$CD/root STATE=$CD/state SOCKET=$SOCK CNI=$CD/cni BRIDGE=$BRIDGE SUBNET=$POD_CIDR "$BUN" -e "
  import { containerdConfigToml, bridgeCniConflist } from '$REPO/src/cri/containerd-config.ts';
  const e = process.env;
  await Bun.write(e.CNI + '/../config.toml', containerdConfigToml({ root: e.ROOT!, state: e.STATE!, socket: e.SOCKET!,
    sandboxImage: 'registry.k8s.io/pause:3.10.2', cniConfDir: e.CNI!, runtimeHandlers: ['test-handler'] }));
  await Bun.write(e.CNI + '/10-nodeagent.conflist', bridgeCniConflist({ name: 'conformance-' + e.BRIDGE, bridge: e.BRIDGE!, subnet: e.SUBNET! }));
"
PATH="$(dirname "$CONTAINERD"):$PATH" setsid "$CONTAINERD" --config "$CD/config.toml" </dev/null >"$CD/containerd.log" 2>&1 &
echo $! >"$CD/containerd.pid"
for _ in $(seq 300); do "$CTR" --address "$SOCK" version >/dev/null 2>&1 && break; sleep 0.2; done
"$CTR" --address "$SOCK" version >/dev/null 2>&1 || die "containerd did not answer: $CD/containerd.log"
log "containerd $("$CONTAINERD" --version | awk '{print $3}') up, pid $(cat "$CD/containerd.pid")"
bash "$HERE/images.sh" --agnhost "$KUBE_BIN/agnhost" --address "$SOCK" --ctr "$CTR" --e2e-test "$E2E" 2>>"$OUT/run.log" ||
  die "images: see $OUT/run.log"
log "images imported"

# The node's cgroup root, in every v1 hierarchy (the kubelet wants it to exist; cpuset needs cpus and mems).
for h in /sys/fs/cgroup/*/; do
  [ "$(stat -fc %T "$h")" = cgroupfs ] || [ "$(stat -fc %T "$h")" = cgroup2fs ] || continue
  mkdir -p "$h${CGROUP_ROOT#/}"
done
if [ -d /sys/fs/cgroup/cpuset ]; then
  cat /sys/fs/cgroup/cpuset/cpuset.cpus >"/sys/fs/cgroup/cpuset${CGROUP_ROOT}/cpuset.cpus"
  cat /sys/fs/cgroup/cpuset/cpuset.mems >"/sys/fs/cgroup/cpuset${CGROUP_ROOT}/cpuset.mems"
fi

# The node's KubeletConfiguration, the same for both: the kubelet reads all of it, nodeagent what it
# implements (it lists the rest in a warning). Images were imported and cannot be pulled again, so
# image GC is off; eviction only when the host is really short.
C=$CP/certs
cat >"$ND/config.yaml" <<Y
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: $NODE_PORT
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $HEALTHZ_PORT
tlsCertFile: $C/node-serving.crt
tlsPrivateKeyFile: $C/node-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $C/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://$SOCK
cgroupDriver: cgroupfs
cgroupRoot: $CGROUP_ROOT
cgroupsPerQOS: true
failCgroupV1: false
failSwapOn: false
podLogsDir: $ND/pod-logs
volumePluginDir: $ND/volume-plugins
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 2%, nodefs.inodesFree: 2%, imagefs.available: 2%}
Y
mkdir -p "$ND/pod-logs" "$ND/volume-plugins" "$ND/root"
case $NODE in
  kubelet)
    "$KUBE_BIN/kubelet" --config "$ND/config.yaml" --kubeconfig "$CP/node.kubeconfig" --root-dir "$ND/root" \
      --cert-dir "$ND/root/pki" --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" -v=2 >"$ND/node.log" 2>&1 &
    ;;
  nodeagent)
    "$NODEAGENT" agent --config "$ND/config.yaml" --kubeconfig "$CP/node.kubeconfig" --root-dir "$ND/root" \
      --runtime-endpoint "unix://$SOCK" --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" \
      --address "$NODE_IP" --port "$NODE_PORT" --tls-cert-file "$C/node-serving.crt" --tls-private-key-file "$C/node-serving.key" \
      --client-ca-file "$C/ca.crt" --pod-logs-dir "$ND/pod-logs" --cgroup-root "$CGROUP_ROOT" \
      --image-gc-high-threshold 100 --image-gc-low-threshold 99 \
      --eviction-hard 'memory.available<100Mi,nodefs.available<2%,nodefs.inodesFree<2%,imagefs.available<2%' \
      --log-format json >"$ND/node.log" 2>&1 &
    ;;
esac
echo $! >"$ND/node.pid"
for _ in $(seq 120); do
  kill -0 "$(cat "$ND/node.pid")" 2>/dev/null || die "the $NODE exited: $ND/node.log"
  "$KUBECTL" --kubeconfig "$ADMIN" get node "$NODE_NAME" >/dev/null 2>&1 && break
  sleep 1
done
"$KUBECTL" --kubeconfig "$ADMIN" wait --for=condition=Ready "node/$NODE_NAME" --timeout=180s >/dev/null || die "node $NODE_NAME not Ready: $ND/node.log"
log "node $NODE_NAME Ready: $("$KUBECTL" --kubeconfig "$ADMIN" get node "$NODE_NAME" -o jsonpath='{.status.nodeInfo.kubeletVersion}')"
for _ in $(seq 60); do "$KUBECTL" --kubeconfig "$ADMIN" -n default get serviceaccount default >/dev/null 2>&1 && break; sleep 1; done

# --- the tests: SHARDS e2e.test processes, each with its share (every SHARDS-th test) --------------------
e2e() { # name focus-regex: one e2e.test process over the tests the regex names; its log and reports in $OUT/name
  local dir=$OUT/$1
  mkdir -p "$dir"
  # shellcheck disable=SC2086
  "$E2E" --kubeconfig "$ADMIN" --provider local --num-nodes 1 --kubectl-path "$KUBECTL" \
    --kubelet-root-dir "$ND/root" --report-dir "$dir" --e2e-output-dir "$dir" --disable-log-dump \
    --ginkgo.focus "$2" --ginkgo.no-color --ginkgo.timeout 4h --ginkgo.json-report "$dir/report.json" $E2E_ARGS \
    >"$dir/e2e.log" 2>&1 &
  echo $! >"$RUN_DIR/e2e-$1.pid"
}
t0=$(date +%s)
for k in $(seq "$SHARDS"); do
  [ -n "$SHARD" ] && [ "$k" != "$SHARD" ] && continue
  awk -v n="$SHARDS" -v k="$k" '(NR - 1) % n == k - 1' "$OUT/tests.txt" >"$OUT/tests-shard-$k.txt"
  [ -s "$OUT/tests-shard-$k.txt" ] || continue
  e2e "shard-$k" "$("$BUN" "$HERE/results.ts" focus "$OUT/dry-run.json" "$OUT/tests-shard-$k.txt")"
done
if [ -n "$SHARD" ]; then cp "$OUT/tests-shard-$SHARD.txt" "$OUT/tests.txt"; fi
log "$(wc -l <"$OUT/tests.txt") tests in $(ls "$RUN_DIR"/e2e-*.pid | wc -l) e2e.test processes"
for f in "$RUN_DIR"/e2e-*.pid; do
  p=$(cat "$f")
  while kill -0 "$p" 2>/dev/null; do sleep 5; done
  rm -f "$f"
done
log "shards done in $(( ($(date +%s) - t0) / 60 )) min"
reports=()
for d in "$OUT"/shard-*; do [ -s "$d/report.json" ] && reports+=("$d/report.json"); done
[ ${#reports[@]} -gt 0 ] || die "no e2e.test process wrote a report: $OUT/shard-*/e2e.log"
"$BUN" "$HERE/results.ts" collect "$OUT" "$OUT/tests.txt" "${reports[@]}" | tee -a "$OUT/run.log"

# Each failure once more, alone: one process, one test at a time.
if [ "$RERUN" = 1 ] && grep -q '^FAIL ' "$OUT/results.txt"; then
  sed -n 's/^FAIL //p' "$OUT/results.txt" >"$OUT/tests-rerun.txt"
  log "rerunning $(wc -l <"$OUT/tests-rerun.txt") failed tests alone"
  e2e rerun "$("$BUN" "$HERE/results.ts" focus "$OUT/dry-run.json" "$OUT/tests-rerun.txt")"
  p=$(cat "$RUN_DIR/e2e-rerun.pid")
  while kill -0 "$p" 2>/dev/null; do sleep 5; done
  rm -f "$RUN_DIR/e2e-rerun.pid"
  [ -s "$OUT/rerun/report.json" ] && reports+=("$OUT/rerun/report.json")
  "$BUN" "$HERE/results.ts" collect "$OUT" "$OUT/tests.txt" "${reports[@]}" | tee -a "$OUT/run.log"
fi
# The components' logs beside the results.
cp "$ND/node.log" "$OUT/logs/$NODE.log"
cp "$CD/containerd.log" "$OUT/logs/containerd.log"
for f in apiserver kcm sched etcd; do cp "$CP/$f.log" "$OUT/logs/$f.log" 2>/dev/null || true; done
log "results: $OUT/results.txt, failures: $OUT/failures.txt, JUnit: $OUT/junit.xml; e2e in $(( ($(date +%s) - t0) / 60 )) min"
}

main "$@"
