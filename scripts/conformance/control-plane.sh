#!/usr/bin/env bash
# control-plane.sh up|down RUNDIR — a Kubernetes control plane from binaries built elsewhere (KUBE_BIN),
# on 127.0.0.1, for scripts/conformance/run.sh: etcd, kube-apiserver (Node and RBAC authorization,
# NodeRestriction and ServiceAccount admission beside the defaults, privileged pods allowed as every
# real cluster allows them), kube-controller-manager (service accounts, kube-root-ca.crt, namespace
# deletion, garbage collection, CSR signing) and kube-scheduler. Nothing is built here.
#
# KUBE_BIN: kube-apiserver, kube-controller-manager, kube-scheduler and etcd/usr/bin/etcd (Debian's
# etcd-server unpacked) or etcd on PATH. Ports: API_PORT (16443), ETCD_PORT (22379, peer +10),
# KCM_PORT (22267), SCHED_PORT (22268). KCM_QPS / KCM_BURST: kube-controller-manager's client limits
# (its defaults, 20 / 30; bench/hollow's scale mode raises them so a 10,000-pod ReplicaSet fills in
# time). NODE_NAME (conformance-node) and NODE_IP (127.0.0.1): the node's identity, for its bearer
# token and its serving certificate.
# Written under RUNDIR: admin.kubeconfig (system:masters) and node.kubeconfig (system:node:NODE_NAME
# in system:nodes), both bearer tokens; certs/ca.{crt,key}; certs/node-serving.{crt,key} (the node's
# HTTPS, names NODE_NAME, NODE_IP and 127.0.0.1); certs/kubelet-client.{crt,key} (what the API server
# presents to the node for logs/exec/attach/port-forward: O=system:masters); *.log and *.pid.
# AUDIT=1: the API server also writes RUNDIR/audit.log (json, Metadata level: user, user agent, verb,
# URI, code of every request; bench/hollow counts requests by client with it).
# `down` stops what `up` started, by the PIDs in RUNDIR, SIGKILL after 10 s.
set -eu
B=${KUBE_BIN:?KUBE_BIN: the folder of built Kubernetes binaries}
cmd=${1:?up|down}
R=${2:?RUNDIR}
PORT=${API_PORT:-16443} EPORT=${ETCD_PORT:-22379}
PPORT=$((EPORT + 10))
NODE_NAME=${NODE_NAME:-conformance-node} NODE_IP=${NODE_IP:-127.0.0.1}

stopf() { # SIGTERM the process in $R/$1.pid, SIGKILL after 10 s (an apiserver whose etcd is gone hangs in shutdown)
  local p
  p=$(cat "$R/$1.pid" 2>/dev/null) || return 0
  rm -f "$R/$1.pid"
  kill "$p" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.2; done
  kill -9 "$p" 2>/dev/null
  return 0
}
kubeconfig() { # name token
  cat >"$R/$1.kubeconfig" <<K
apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "https://127.0.0.1:$PORT", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: $2}}]
contexts: [{name: c, context: {cluster: local, user: u}}]
current-context: c
K
}
signed() { # name subject extfile-or-empty: a key and a certificate signed by certs/ca
  local C=$R/certs
  openssl req -newkey rsa:2048 -nodes -keyout "$C/$1.key" -out "$C/$1.csr" -subj "$2" 2>/dev/null
  openssl x509 -req -in "$C/$1.csr" -CA "$C/ca.crt" -CAkey "$C/ca.key" -CAcreateserial ${3:+-extfile "$3"} -out "$C/$1.crt" -days 2 2>/dev/null
}
wait_for() { # what url [curl args]: until it answers ok
  local what=$1 url=$2
  shift 2
  for _ in $(seq 300); do
    [ "$(curl -sk "$@" "$url" 2>/dev/null)" = ok ] && return 0
    sleep 0.5
  done
  echo "control-plane: $what not healthy at $url (see $R/$what.log)" >&2
  return 1
}

case $cmd in
up)
  ETCD=$B/etcd/usr/bin/etcd
  [ -x "$ETCD" ] || ETCD=$(command -v etcd) || { echo "no etcd under $B/etcd/usr/bin or on PATH" >&2; exit 3; }
  for b in kube-apiserver kube-controller-manager kube-scheduler; do [ -x "$B/$b" ] || { echo "no $B/$b" >&2; exit 3; }; done
  mkdir -p "$R/certs"
  rm -rf "$R/etcd-data"
  C=$R/certs
  openssl genrsa -out "$C/sa.key" 2048 2>/dev/null
  openssl rsa -in "$C/sa.key" -pubout -out "$C/sa.pub" 2>/dev/null
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$C/ca.key" -out "$C/ca.crt" -days 2 -subj /CN=conformance-ca 2>/dev/null
  signed kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  printf 'subjectAltName=IP:%s,IP:127.0.0.1,DNS:%s\n' "$NODE_IP" "$NODE_NAME" >"$C/node-san.ext"
  signed node-serving "/CN=$NODE_NAME" "$C/node-san.ext"
  printf '%s\n' admintoken,admin,admin,system:masters "nodetoken,system:node:$NODE_NAME,$NODE_NAME,system:nodes" \
    schedtoken,system:kube-scheduler,kube-scheduler kcmtoken,system:kube-controller-manager,kcm >"$C/tokens.csv"
  "$ETCD" --name conformance --data-dir "$R/etcd-data" --listen-client-urls "http://127.0.0.1:$EPORT" \
    --advertise-client-urls "http://127.0.0.1:$EPORT" --listen-peer-urls "http://127.0.0.1:$PPORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PPORT" --initial-cluster "conformance=http://127.0.0.1:$PPORT" >"$R/etcd.log" 2>&1 &
  echo $! >"$R/etcd.pid"
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$EPORT/health" >/dev/null && break; sleep 0.2; done
  AUDIT_FLAGS=()
  if [ "${AUDIT:-0}" = 1 ]; then
    printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: ["RequestReceived"]\nrules:\n- level: Metadata\n' >"$C/audit.yaml"
    AUDIT_FLAGS=(--audit-policy-file="$C/audit.yaml" --audit-log-path="$R/audit.log" --audit-log-format=json --audit-log-maxsize=0)
  fi
  "$B/kube-apiserver" "${AUDIT_FLAGS[@]}" --etcd-servers="http://127.0.0.1:$EPORT" --bind-address=127.0.0.1 --advertise-address=127.0.0.1 \
    --secure-port="$PORT" --cert-dir="$C" --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=true \
    --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$C/sa.pub" \
    --service-account-signing-key-file="$C/sa.key" --token-auth-file="$C/tokens.csv" --client-ca-file="$C/ca.crt" \
    --kubelet-client-certificate="$C/kubelet-client.crt" --kubelet-client-key="$C/kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP --authorization-mode=Node,RBAC \
    --enable-admission-plugins=NodeRestriction,ServiceAccount \
    --endpoint-reconciler-type=none --enable-priority-and-fairness=false -v=2 >"$R/apiserver.log" 2>&1 &
  echo $! >"$R/apiserver.pid"
  wait_for apiserver "https://127.0.0.1:$PORT/readyz" -H 'Authorization: Bearer admintoken'
  kubeconfig admin admintoken
  kubeconfig node nodetoken
  kubeconfig sched schedtoken
  kubeconfig kcm kcmtoken
  "$B/kube-controller-manager" --kubeconfig "$R/kcm.kubeconfig" --authentication-skip-lookup --authorization-always-allow-paths=/healthz \
    --use-service-account-credentials=true --service-account-private-key-file="$C/sa.key" --root-ca-file="$C/apiserver.crt" \
    --cluster-signing-cert-file="$C/ca.crt" --cluster-signing-key-file="$C/ca.key" --controllers='*,-nodeipam' \
    --bind-address=127.0.0.1 --secure-port="${KCM_PORT:-22267}" --leader-elect=false \
    --kube-api-qps="${KCM_QPS:-20}" --kube-api-burst="${KCM_BURST:-30}" -v=2 >"$R/kcm.log" 2>&1 &
  echo $! >"$R/kcm.pid"
  "$B/kube-scheduler" --kubeconfig "$R/sched.kubeconfig" --authentication-kubeconfig "$R/sched.kubeconfig" \
    --authorization-kubeconfig "$R/sched.kubeconfig" --authentication-skip-lookup --bind-address=127.0.0.1 \
    --secure-port="${SCHED_PORT:-22268}" --leader-elect=false -v=2 >"$R/sched.log" 2>&1 &
  echo $! >"$R/sched.pid"
  wait_for kcm "https://127.0.0.1:${KCM_PORT:-22267}/healthz"
  wait_for sched "https://127.0.0.1:${SCHED_PORT:-22268}/healthz"
  echo "https://127.0.0.1:$PORT"
  ;;
down)
  for f in sched kcm apiserver etcd; do stopf $f; done
  ;;
*)
  echo "usage: $0 up|down RUNDIR" >&2
  exit 2
  ;;
esac
