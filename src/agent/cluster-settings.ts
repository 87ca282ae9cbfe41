// The settings of a node of a cluster (--kubeconfig and its context, TLS bootstrap and certificate
// rotation, the certificates' folder), declared once as rows (util/settings.ts) and resolved here.
// In src/agent, not src/cluster: src/cluster loads @kubernetes/client-node, and --help must not.
import { join } from "node:path";
import { BOOL, boolFlag, fileBool, fileInt, fileString, INT, mustExist, ownedFolder, type Setting, type SettingsReader, wholeNumber } from "../util";

/** The kubelet's certificate settings (issue 18). */
export interface ClusterCertificates {
  /** --bootstrap-kubeconfig: get a client certificate with these credentials when --kubeconfig has none usable. */
  bootstrapKubeconfig?: string;
  /** --rotate-certificates / rotateCertificates: renew the client certificate before it expires. */
  rotateCertificates: boolean;
  /** --rotate-server-certificates / serverTLSBootstrap: request (and renew) the serving certificate from the cluster. */
  serverTLSBootstrap: boolean;
}

/**
 * The node's API client limits as given (--kube-api-qps, --kube-api-burst; kubeAPIQPS, kubeAPIBurst):
 * whole numbers, as the kubelet's int32 fields. kubeApiRateLimit turns them into the client's limit.
 */
export interface KubeApiLimits {
  qps: number;
  burst: number;
}

/** What the rows show in /configz (AgentConfig has it): the certificate settings and client limits, with --kubeconfig only. */
export interface ClusterView {
  cluster?: { certificates: ClusterCertificates; kubeApi: KubeApiLimits };
}

/** The largest value of the kubelet's int32 fields. */
const INT32_MAX = 2 ** 31 - 1;

export const CLUSTER_SETTINGS: ReadonlyArray<Setting<ClusterView>> = [
  { flag: "kubeconfig", valueHint: "file", doc: "Join a Kubernetes cluster as a node with these credentials" },
  { flag: "context", valueHint: "name", doc: "The --kubeconfig context to use (default: its current-context)" },
  {
    flag: "bootstrap-kubeconfig",
    valueHint: "file",
    doc: "Credentials to request a client certificate with when --kubeconfig is missing or its certificate expired; --kubeconfig is then written",
  },
  { flag: "cert-dir", valueHint: "dir", doc: "Where issued certificates and the self-signed serving pair live (default: <root-dir>/pki)" },
  {
    flag: "rotate-certificates",
    field: "rotateCertificates",
    fieldType: BOOL,
    kind: "boolean",
    show: (c) => c.cluster?.certificates.rotateCertificates,
    doc: "Renew the client certificate from the cluster before it expires (default false)",
  },
  {
    flag: "rotate-server-certificates",
    field: "serverTLSBootstrap",
    fieldType: BOOL,
    kind: "boolean",
    show: (c) => c.cluster?.certificates.serverTLSBootstrap,
    doc: "Request the serving certificate from the cluster (signer kubernetes.io/kubelet-serving) and renew it (default false)",
  },
  {
    flag: "kube-api-qps",
    field: "kubeAPIQPS",
    fieldType: INT,
    valueHint: "int",
    default: "50",
    show: (c) => c.cluster?.kubeApi.qps,
    doc: "Requests per second the node sends the API server, beyond its bursts (0: client-go's default, 5); the Lease, node status and events are not counted against it",
  },
  {
    flag: "kube-api-burst",
    field: "kubeAPIBurst",
    fieldType: INT,
    valueHint: "int",
    default: "100",
    show: (c) => c.cluster?.kubeApi.burst,
    doc: "Requests the node may send the API server at once after a quiet spell (at least 1 with --kube-api-qps above 0)",
  },
];

export interface ClusterAccess {
  kubeconfig?: string;
  context?: string;
  certificates: ClusterCertificates;
}

/**
 * --kubeconfig, --bootstrap-kubeconfig, the rotation settings and --context, checked together:
 * `tlsCertFile` (a given serving certificate) and `localObjects` (the standalone objects) exclude
 * parts of them.
 */
export function resolveClusterAccess(s: SettingsReader, o: { tlsCertFile?: string; localObjects?: string }): ClusterAccess {
  // With --bootstrap-kubeconfig, --kubeconfig is where the bootstrapped kubeconfig goes: it may not exist yet.
  const bootstrapKubeconfig = s.string("bootstrap-kubeconfig", mustExist);
  const kubeconfig = s.string("kubeconfig", bootstrapKubeconfig ? (p) => p : mustExist);
  if (bootstrapKubeconfig && !kubeconfig)
    s.fail("--bootstrap-kubeconfig needs --kubeconfig: the path where the node's kubeconfig (pointing at the issued client certificate) is written");
  const rotateCertificates = s.get("rotate-certificates", boolFlag, fileBool) ?? false;
  const serverTLSBootstrap = s.get("rotate-server-certificates", boolFlag, fileBool) ?? false;
  // Without a cluster there is no one to ask: an error on the command line; in a file (kubeadm's sets
  // rotateCertificates: true) a warning, as the standalone kubelet ignores them.
  for (const [flag, on] of [
    ["rotate-certificates", rotateCertificates],
    ["rotate-server-certificates", serverTLSBootstrap],
  ] as const) {
    if (kubeconfig || !on) continue;
    if (s.isGiven(flag)) s.fail(`--${flag} asks the API server for certificates: give --kubeconfig (or --bootstrap-kubeconfig) too`);
    else {
      const f = s.fromFile(flag);
      s.warn(`${f ? `${f.at}: ${f.name}` : s.fieldOf(flag)}: ignored without --kubeconfig (there is no API server to issue certificates)`);
    }
  }
  if (serverTLSBootstrap && o.tlsCertFile)
    s.fail("--rotate-server-certificates requests the serving certificate from the cluster: drop --tls-cert-file and --tls-private-key-file");
  const context = s.string("context");
  if (o.localObjects && kubeconfig)
    s.fail(
      "--local-objects serves the static and pushed pods of a node without --kubeconfig; with --kubeconfig configMaps and secrets come from the API server: give one of the two",
    );
  if (context && !kubeconfig) s.fail("--context chooses a context of --kubeconfig: give --kubeconfig too");
  return { kubeconfig, context, certificates: { ...(bootstrapKubeconfig ? { bootstrapKubeconfig } : {}), rotateCertificates, serverTLSBootstrap } };
}

/** --cert-dir: a folder the agent owns, default <root-dir>/pki. */
export function resolveCertDir(s: SettingsReader, rootDir: string): string {
  const check = ownedFolder("/var/lib/nodeagent/pki");
  return s.get("cert-dir", check, (v) => check(fileString(v))) ?? join(rootDir, "pki");
}

/**
 * --kube-api-qps and --kube-api-burst (kubeAPIQPS, kubeAPIBurst): whole numbers, not negative (the
 * kubelet's validation). kubeAPIQPS is a pointer in v1beta1, so an explicit 0 in the file is kept (and
 * means client-go's default, kubeApiRateLimit); kubeAPIBurst at 0 in the file is unset (100). A burst
 * of 0 with a qps above 0 is refused, as client-go refuses to make such a clientset.
 */
export function resolveKubeApiLimits(s: SettingsReader): KubeApiLimits {
  const read = (flag: string) => s.get(flag, (t) => wholeNumber(t, 0, INT32_MAX), fileInt(0, INT32_MAX));
  const qps = read("kube-api-qps") ?? 50;
  const burst = read("kube-api-burst") ?? 100;
  if (qps > 0 && burst === 0) {
    const f = s.fromFile("kube-api-qps");
    s.fail(
      `--kube-api-burst 0 with ${f ? `${f.at}: kubeAPIQPS` : "--kube-api-qps"} ${qps}: the burst must be at least 1 when the qps is above 0 (client-go: "burst is required to be greater than 0")`,
    );
  }
  return { qps, burst };
}

/** client-go's rest.DefaultQPS and DefaultBurst: what a Config of QPS 0 (or Burst 0) gets. */
const CLIENT_GO_DEFAULT_QPS = 5;
const CLIENT_GO_DEFAULT_BURST = 10;

/**
 * The node client's token bucket: the given limits, with client-go's defaults where they are 0 (the
 * kubelet hands 0 on to client-go, whose rest.Config defaulting makes 5 per second and bursts of 10 of it).
 */
export function kubeApiRateLimit(l: KubeApiLimits): { qps: number; burst: number } {
  return { qps: l.qps || CLIENT_GO_DEFAULT_QPS, burst: l.burst || CLIENT_GO_DEFAULT_BURST };
}
