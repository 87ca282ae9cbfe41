// The checks for what the kubelet runs but should not: unpinned images, missing resources and
// probes, privileges, sensitive host mounts, host namespaces, root. They follow kube-linter's checks
// of the same names (privileged-container, privilege-escalation-container, run-as-non-root,
// sensitive-host-mounts, host-network/pid/ipc, latest-tag, unset-*-requirements, *-port) and exempt
// control-plane pods from the ones they cannot meet, as Polaris's default configuration does.
import type { Container, Pod, Probe } from "kubernetes-types/core/v1";
import { parseImageReference } from "../api";

/** A practice finding before it is positioned: which rule, which field, what is wrong. */
export interface PracticeFinding {
  rule: string;
  field: string;
  /** Point at the key rather than the value (for a field whose value spans many lines). */
  part?: "key";
  message: string;
}

/** kubeadm's control-plane pods, and the kube-system components Polaris exempts by name. */
const CONTROL_PLANE_NAMES = new Set(["kube-apiserver", "kube-controller-manager", "kube-scheduler", "etcd", "kube-proxy", "cloud-controller-manager"]);

/** A kube-system pod named like a control-plane component or labelled `tier: control-plane` (as kubeadm does). */
export function isControlPlanePod(pod: Pod): boolean {
  const meta = pod.metadata ?? {};
  if ((meta.namespace ?? "default") !== "kube-system") return false;
  return CONTROL_PLANE_NAMES.has(meta.name ?? "") || meta.labels?.tier === "control-plane";
}

/** kube-linter's sensitive-host-mounts directories, and the container runtimes' sockets. */
const SENSITIVE_HOST_DIRS = new Set(["/", "/boot", "/dev", "/etc", "/lib", "/proc", "/sys", "/usr"]);
const RUNTIME_SOCKET = /(?:^|\/)(?:docker|containerd|crio|cri-dockerd|dockershim)\.sock$/;

function normalisedHostPath(path: string): string {
  const collapsed = path.replace(/\/+/g, "/");
  return collapsed.length > 1 ? collapsed.replace(/\/$/, "") : collapsed;
}

interface ContainerAt {
  container: Container;
  path: string;
}

function containersOf(pod: Pod): { all: ContainerAt[]; app: ContainerAt[] } {
  const spec = pod.spec;
  const app = (spec?.containers ?? []).map((container, i) => ({ container, path: `spec.containers[${i}]` }));
  const init = (spec?.initContainers ?? []).map((container, i) => ({ container, path: `spec.initContainers[${i}]` }));
  return { all: [...init, ...app], app };
}

const quote = (s: string | undefined): string => JSON.stringify(s ?? "");

function imageTag({ container, path }: ContainerAt): PracticeFinding[] {
  const image = container.image ?? "";
  const ref = parseImageReference(image);
  // A digest pins the image whatever the tag; an unparseable reference is an error elsewhere.
  if (!ref || ref.digest || ref.tag !== "latest") return [];
  const why = image.endsWith(":latest") ? "is tagged latest" : "has no tag, which means latest";
  return [{ rule: "latest-tag", field: `${path}.image`, message: `container ${quote(container.name)}: image ${quote(image)} ${why}` }];
}

function resources({ container, path }: ContainerAt): PracticeFinding[] {
  const missing: string[] = [];
  if (container.resources?.requests?.cpu === undefined) missing.push("cpu request");
  if (container.resources?.requests?.memory === undefined) missing.push("memory request");
  if (container.resources?.limits?.memory === undefined) missing.push("memory limit");
  if (missing.length === 0) return [];
  const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} or ${missing.at(-1)}`;
  const field = container.resources ? `${path}.resources` : path;
  return [{ rule: "missing-resources", field, part: "key", message: `container ${quote(container.name)} sets no ${list}` }];
}

function probes({ container, path }: ContainerAt): PracticeFinding[] {
  const out: PracticeFinding[] = [];
  if (!container.livenessProbe) out.push({ rule: "missing-liveness-probe", field: path, message: `container ${quote(container.name)} has no liveness probe` });
  if (!container.readinessProbe)
    out.push({ rule: "missing-readiness-probe", field: path, message: `container ${quote(container.name)} has no readiness probe` });
  return out;
}

/** A named httpGet or tcpSocket port must be one of the container's ports (kube-linter's *-port checks). */
function probePorts({ container, path }: ContainerAt): PracticeFinding[] {
  const names = new Set((container.ports ?? []).map((p) => p.name).filter((n) => n));
  const out: PracticeFinding[] = [];
  for (const kind of ["livenessProbe", "readinessProbe", "startupProbe"] as const) {
    const probe: Probe | undefined = container[kind];
    for (const handler of ["httpGet", "tcpSocket"] as const) {
      const port = probe?.[handler]?.port;
      if (typeof port !== "string" || names.has(port)) continue;
      out.push({
        rule: "probe-port-not-found",
        field: `${path}.${kind}.${handler}.port`,
        message: `container ${quote(container.name)}: the ${kind} names port ${quote(port)}, which the container does not declare`,
      });
    }
  }
  return out;
}

function privileges({ container, path }: ContainerAt): PracticeFinding[] {
  const sc = container.securityContext;
  const out: PracticeFinding[] = [];
  const at = `${path}.securityContext`;
  if (sc?.privileged === true) out.push({ rule: "privileged", field: `${at}.privileged`, message: `container ${quote(container.name)} is privileged` });
  if (sc?.allowPrivilegeEscalation === true) {
    out.push({
      rule: "privilege-escalation",
      field: `${at}.allowPrivilegeEscalation`,
      message: `container ${quote(container.name)} allows privilege escalation`,
    });
  }
  (sc?.capabilities?.add ?? []).forEach((cap, i) => {
    const name = cap.toUpperCase().replace(/^CAP_/, "");
    if (name !== "SYS_ADMIN" && name !== "ALL") return;
    out.push({ rule: "privilege-escalation", field: `${at}.capabilities.add[${i}]`, message: `container ${quote(container.name)} adds capability ${cap}` });
  });
  return out;
}

function runAsRoot(pod: Pod, { container, path }: ContainerAt): PracticeFinding[] {
  const podSc = pod.spec?.securityContext;
  const sc = container.securityContext;
  const userField = sc?.runAsUser !== undefined ? `${path}.securityContext.runAsUser` : "spec.securityContext.runAsUser";
  const user = sc?.runAsUser ?? podSc?.runAsUser;
  if (user === 0) return [{ rule: "run-as-non-root", field: userField, message: `container ${quote(container.name)} runs as root (runAsUser: 0)` }];
  const nonRoot = sc?.runAsNonRoot ?? podSc?.runAsNonRoot;
  if (nonRoot === true || (user !== undefined && user > 0)) return [];
  return [
    {
      rule: "run-as-non-root",
      field: path,
      message: `container ${quote(container.name)} may run as root: neither runAsNonRoot nor a non-zero runAsUser is set`,
    },
  ];
}

function hostMounts(pod: Pod): PracticeFinding[] {
  const out: PracticeFinding[] = [];
  (pod.spec?.volumes ?? []).forEach((v, i) => {
    const raw = v.hostPath?.path;
    if (!raw) return;
    const path = normalisedHostPath(raw);
    if (!SENSITIVE_HOST_DIRS.has(path) && !RUNTIME_SOCKET.test(path)) return;
    out.push({ rule: "sensitive-host-mount", field: `spec.volumes[${i}].hostPath.path`, message: `volume ${quote(v.name)} mounts the host's ${path}` });
  });
  return out;
}

function hostNamespaces(pod: Pod): PracticeFinding[] {
  const out: PracticeFinding[] = [];
  for (const [field, what] of [
    ["hostNetwork", "network"],
    ["hostPID", "process (PID)"],
    ["hostIPC", "IPC"],
  ] as const) {
    if (pod.spec?.[field] === true) out.push({ rule: "host-namespaces", field: `spec.${field}`, message: `the pod shares the host's ${what} namespace` });
  }
  return out;
}

/** Every practice finding for a decoded, API-defaulted pod, control-plane exemptions not yet applied. */
export function checkPractices(pod: Pod): PracticeFinding[] {
  const { all, app } = containersOf(pod);
  const out: PracticeFinding[] = [];
  if (pod.metadata?.uid) {
    out.push({
      rule: "fixed-uid",
      field: "metadata.uid",
      message: `metadata.uid is set to ${quote(pod.metadata.uid)}; the kubelet then keeps it across edits and nodes`,
    });
  }
  out.push(...hostNamespaces(pod), ...hostMounts(pod));
  for (const c of all) out.push(...imageTag(c), ...resources(c), ...privileges(c), ...runAsRoot(pod, c));
  for (const c of app) out.push(...probes(c), ...probePorts(c));
  return out;
}
