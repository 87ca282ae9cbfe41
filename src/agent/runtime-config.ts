// From a v1 Pod to CRI configs: the sandbox config (metadata, hostname, log directory, DNS, ports,
// namespaces, cgroup parent) and each container's config (command, env with downward API and $(VAR)
// expansion, mounts with the managed /etc/hosts, resources, security context, the kubelet's labels
// and annotations).
// Pure functions: the caller makes the volumes (PodVolumes) and calls the runtime; container mounts
// take their host paths from the lookup it passes.
import { totalmem } from "node:os";
import { dirname, join } from "node:path";
import type { Container, EnvVar, EnvVarSource, Pod } from "kubernetes-types/core/v1";
import { type ContainerConfigInput, containerLabels, type PodSandboxConfigInput, sandboxLabels } from "../cri";
import { expandVars, mountSubPath, parseQuantity, podRef, podSupplementalGroups, podSupplementalGroupsPolicy, uidSegment } from "../api";
import { containerOomScoreAdj, flatPodCgroupParent, milliCpuToQuota, milliCpuToShares, QUOTA_PERIOD_US, type PodCgroups } from "../cm";
import { ContainerConfigError, DownwardAPIError, envFieldValue, resourceFieldValue, type ResourceList } from "../objects";
import { mustMountReadOnly } from "../volume";
import { confinedPath, PathEscapeError, pathSegmentProblem } from "../util";
import * as ann from "./labels";
import { podDnsConfig, type ClusterDnsOptions } from "./dns";
import { ETC_HOSTS_PATH } from "./etc-hosts";
import { nodenameForKernel, podHostnameAndDomain } from "./pod-hostname";
import {
  containerAppArmorProfile,
  containerSeccompProfile,
  containerSeLinuxOption,
  procMountPaths,
  SANDBOX_SECCOMP_PROFILE,
  seLinuxOption,
} from "./security-context";
import type { RuntimeClassLookup } from "./runtime-class-manager";

export interface RuntimeConfigOptions {
  /** The kubelet's /var/log/pods. */
  podLogsRoot: string;
  /** Where pod volumes live: <podsDir>/<uid>/volumes/kubernetes.io~empty-dir/<name>, as the kubelet. */
  podsDir: string;
  /**
   * Where Localhost seccomp profiles are (the kubelet's seccomp-profile-root, <root-dir>/seccomp);
   * <podsDir>/../seccomp when not given.
   */
  seccompProfileRoot?: string;
  /** --cgroup-root: every pod's cgroup is below it. */
  cgroupRoot: string;
  /**
   * Where each pod's cgroup is (src/cm ContainerManager: kubepods/<qos>/pod<uid> in the driver's
   * spelling); without it, <cgroupRoot>/pod<uid> (the flat layout).
   */
  podCgroups?: PodCgroups;
  /** The machine's memory (MemTotal), for the Burstable OOM score; os.totalmem() when not given. */
  memoryCapacityBytes?: number;
  nodeName: string;
  /** The Node's InternalIP (status.hostIP, the downward API's status.hostIP). */
  hostIP: string;
  /** Every InternalIP of the Node, hostIP first (status.hostIPs); [hostIP] when not given. */
  hostIPs?: readonly string[];
  /**
   * Cluster DNS for ClusterFirst pods (the kubelet's --cluster-dns); without it they use the host's.
   * Its domain (--cluster-domain) also names a pod with a subdomain (pod-hostname.ts); "" without it.
   */
  clusterDns?: ClusterDnsOptions;
  /** The node's hosts file, which a host-network pod's /etc/hosts is made from (etc-hosts.ts); /etc/hosts when not given. */
  nodeHostsFile?: string;
  /**
   * The node's status.allocatable, for what a container leaves unset: a resourceFieldRef of a limit
   * the container does not set reads the node's allocatable (the kubelet's
   * defaultPodLimitsForDownwardAPI), and a Memory emptyDir without sizeLimit or pod limit is sized by it.
   */
  nodeAllocatable?: () => Promise<ResourceList | undefined>;
  /**
   * spec.runtimeClassName → the sandbox's CRI runtime handler (runtime-class-manager.ts); without it
   * (standalone) a pod that names a RuntimeClass cannot start and says why (NoRuntimeClasses).
   */
  runtimeClasses?: RuntimeClassLookup;
  /**
   * Why the runtime's network is not ready (runtime-state.ts, the kubelet's runtimeState.networkErrors),
   * undefined when it is: only host-network pods sync meanwhile. Always ready when not given.
   */
  networkErrors?: () => string | undefined;
  /**
   * The node belongs to a cluster (--kubeconfig): its static pods are critical (src/api
   * isCriticalPod), which the OOM score of a system-node-critical pod follows.
   */
  cluster?: boolean;
}

// Every path below is built from pod data with confinedPath, which throws PathEscapeError rather
// than leave its root (issue 12); a UID must also pass uidSegment (podUIDProblem) before it names anything.

/** A container name as a path segment (validated by the sources; checked again, as it names folders). */
function nameSegment(name: string): string {
  const problem = pathSegmentProblem(name);
  if (problem) throw new PathEscapeError(`container name ${JSON.stringify(name)} cannot name a folder: it ${problem}`);
  return name;
}

/** <podsDir>/<uid>: everything the agent keeps on disk for the pod (volumes, termination logs). */
export function podDir(uid: string, o: RuntimeConfigOptions): string {
  return confinedPath(o.podsDir, uidSegment(uid));
}

export function podLogDir(pod: Pod, o: RuntimeConfigOptions): string {
  const r = podRef(pod);
  return confinedPath(o.podLogsRoot, `${r.namespace}_${r.name}_${uidSegment(r.uid)}`);
}

/** <podLogDir>/<container>: where the runtime writes the container's <restart>.log files. */
export function containerLogDir(pod: Pod, container: string, o: RuntimeConfigOptions): string {
  return confinedPath(podLogDir(pod, o), nameSegment(container));
}

/** <podDir>/containers/<container>: the folder of the container's termination-log files. */
export function terminationLogDir(pod: Pod, container: string, o: RuntimeConfigOptions): string {
  return confinedPath(podDir(podRef(pod).uid, o), "containers", nameSegment(container));
}

/**
 * The CRI supplementalGroupsPolicy of the pod's securityContext, only when the pod sets one (the
 * kubelet leaves the field unset otherwise). Strict reaches the runtime only on a node that said it
 * can do it: admission refuses the pod elsewhere (src/admission, SupplementalGroupsPolicyNotSupported).
 */
function supplementalGroupsPolicy(pod: Pod): { supplementalGroupsPolicy?: "Merge" | "Strict" } {
  const policy = podSupplementalGroupsPolicy(pod);
  if (policy === undefined) return {};
  if (policy !== "Merge" && policy !== "Strict") throw new Error(`unsupported supplementalGroupsPolicy: ${policy}`);
  return { supplementalGroupsPolicy: policy };
}

/** The sandbox's cgroup_parent: the pod's cgroup (src/cm). */
export function podCgroupParent(pod: Pod, o: RuntimeConfigOptions): string {
  return o.podCgroups ? o.podCgroups.parent(pod) : flatPodCgroupParent(o.cgroupRoot, podRef(pod).uid);
}

/** The cluster domain pods' FQDNs end in (--cluster-domain), "" when the options name none. */
export function clusterDomain(o: RuntimeConfigOptions): string {
  return o.clusterDns?.domain ?? "";
}

/**
 * The sandbox's config (the kubelet's generatePodSandboxConfig). Throws, with the kubelet's message,
 * when the pod's hostname cannot be made (an invalid name, an FQDN too long for setHostnameAsFQDN).
 */
export function sandboxConfig(pod: Pod, attempt: number, o: RuntimeConfigOptions): PodSandboxConfigInput {
  const ref = podRef(pod);
  const spec = pod.spec!;
  const hostNetwork = spec.hostNetwork === true;
  const ports = [...(spec.initContainers ?? []), ...spec.containers].flatMap((c) => c.ports ?? []).filter((p) => p.hostPort);
  return {
    metadata: { name: ref.name, namespace: ref.namespace, uid: ref.uid, attempt },
    // A host-network sandbox must not set a hostname: it would rename the host (DESIGN.md). Otherwise
    // the short name, or the FQDN with setHostnameAsFQDN and a subdomain (pod-hostname.ts).
    hostname: hostNetwork ? "" : nodenameForKernel(podHostnameAndDomain(pod, clusterDomain(o)), spec.setHostnameAsFQDN ?? undefined),
    logDirectory: podLogDir(pod, o),
    dnsConfig: podDnsConfig(pod, o.clusterDns),
    portMappings: ports.map((p) => ({
      protocol: (p.protocol ?? "TCP") as "TCP" | "UDP" | "SCTP",
      containerPort: p.containerPort,
      hostPort: p.hostPort!,
      hostIp: p.hostIP ?? "",
    })),
    labels: { ...(pod.metadata?.labels ?? {}), ...sandboxLabels(ref) },
    annotations: { ...(pod.metadata?.annotations ?? {}) },
    linux: {
      cgroupParent: podCgroupParent(pod, o),
      sysctls: Object.fromEntries((spec.securityContext?.sysctls ?? []).map((s) => [s.name, s.value])),
      securityContext: {
        namespaceOptions: {
          network: hostNetwork ? "NODE" : "POD",
          pid: spec.hostPID ? "NODE" : spec.shareProcessNamespace ? "POD" : "CONTAINER",
          ipc: spec.hostIPC ? "NODE" : "POD",
        },
        privileged: [...(spec.initContainers ?? []), ...spec.containers].some((c) => c.securityContext?.privileged === true),
        runAsUser: spec.securityContext?.runAsUser !== undefined ? { value: spec.securityContext.runAsUser } : null,
        runAsGroup: spec.securityContext?.runAsGroup !== undefined ? { value: spec.securityContext.runAsGroup } : null,
        // fsGroup first, then supplementalGroups, and the policy as written (generatePodSandboxLinuxConfig).
        supplementalGroups: podSupplementalGroups(pod),
        ...supplementalGroupsPolicy(pod),
        // generatePodSandboxLinuxConfig: the pause container always runs RuntimeDefault (kubernetes#84623),
        // and carries the pod's SELinux options.
        seccomp: SANDBOX_SECCOMP_PROFILE,
        selinuxOptions: seLinuxOption(spec.securityContext?.seLinuxOptions),
      },
    },
  };
}

/** <root-dir>/seccomp: the folder Localhost seccomp profiles are read from. */
export function seccompProfileRoot(o: RuntimeConfigOptions): string {
  return o.seccompProfileRoot ?? join(dirname(o.podsDir), "seccomp");
}

/**
 * A downward API value for env (src/objects/downward-api.ts, shared with downwardAPI volumes). A field
 * the downward API does not offer cannot pass the API server's validation; from a file it is still
 * an empty value here, as before, until env resolution reports CreateContainerConfigError (issue 15).
 */
function downwardValue(get: () => string): string {
  try {
    return get();
  } catch (e) {
    if (e instanceof DownwardAPIError) return "";
    throw e;
  }
}

/**
 * The value of a fieldRef or resourceFieldRef env source for this container: what the kubelet's
 * makeEnvironmentVariables reads through podFieldSelectorRuntimeValue / containerResourceRuntimeValue
 * (src/objects/downward-api.ts). A field the downward API does not offer is the kubelet's
 * CreateContainerConfigError; src/objects/container-env.ts takes this as its downward callback.
 */
export function downwardEnvValue(pod: Pod, c: Container, o: RuntimeConfigOptions, podIP: string, allocatable?: ResourceList): (source: EnvVarSource) => string {
  return (source) => {
    try {
      if (source.fieldRef) return envFieldValue(pod, source.fieldRef.fieldPath, o, [podIP]);
      if (source.resourceFieldRef) return resourceFieldValue(c, source.resourceFieldRef, allocatable);
      return "";
    } catch (err) {
      if (err instanceof DownwardAPIError) throw new ContainerConfigError(err.message);
      throw err;
    }
  };
}

/**
 * The container's environment from its env list alone, in order, with downward API values and $(VAR)
 * expanded. The pod sync resolves the full one (envFrom, configMap and secret keys) with src/objects
 * makeEnvironmentVariables and passes it to containerConfig.
 */
export function containerEnv(pod: Pod, c: Container, o: RuntimeConfigOptions, podIP: string): { key: string; value: string }[] {
  const vars = new Map<string, string>();
  const out: { key: string; value: string }[] = [];
  for (const e of c.env ?? ([] as EnvVar[])) {
    let value = "";
    if (e.value !== undefined) value = expandVars(e.value, vars);
    else if (e.valueFrom?.fieldRef) value = downwardValue(() => envFieldValue(pod, e.valueFrom!.fieldRef!.fieldPath, o, [podIP]));
    else if (e.valueFrom?.resourceFieldRef) value = downwardValue(() => resourceFieldValue(c, e.valueFrom!.resourceFieldRef!));
    vars.set(e.name, value);
    out.push({ key: e.name, value });
  }
  return out;
}

/**
 * Where a container mount's host side is: the volume's host path, or the resolved path of its subPath
 * (PodVolumes.mountSource, src/volume); undefined when the pod has no such volume made. May throw
 * (a subPath leading out of its volume).
 */
export type VolumePathLookup = (volumeName: string, subPath: string) => string | undefined;

/**
 * The kubelet's cgroup values for one container (kuberuntime_container_linux.go
 * generateLinuxContainerConfig, --cpu-cfs-quota on): shares from the request (the limit when only
 * that is set), the period always and a quota only with a cpu limit, the memory limit, and the OOM
 * score adjustment of the pod's QoS class (src/cm/oom-score.ts).
 */
export function linuxResources(
  pod: Pod,
  c: Container,
  memoryCapacityBytes: number = totalmem(),
  cluster = false,
): NonNullable<NonNullable<ContainerConfigInput["linux"]>["resources"]> {
  const req = c.resources?.requests ?? {};
  const lim = c.resources?.limits ?? {};
  const milli = (q: string | number | undefined) => (q === undefined ? 0 : parseQuantity(q).milli());
  const cpuRequest = milli(req.cpu);
  const cpuLimit = milli(lim.cpu);
  return {
    cpuShares: milliCpuToShares(cpuRequest === 0 && cpuLimit !== 0 ? cpuLimit : cpuRequest),
    cpuPeriod: QUOTA_PERIOD_US,
    cpuQuota: milliCpuToQuota(cpuLimit),
    memoryLimitInBytes: lim.memory !== undefined ? parseQuantity(lim.memory).value() : 0,
    oomScoreAdj: containerOomScoreAdj(pod, c, memoryCapacityBytes, { cluster }),
  };
}

/**
 * The PID namespace: the node's (hostPID), the pod's (shareProcessNamespace) or the container's own; an
 * ephemeral container with a target, whose PID namespace would be its own, gets the target's (TARGET
 * with its ID), as the kubelet's generateLinuxContainerConfig.
 */
function pidNamespace(pod: Pod, targetId: string | undefined): { pid: "NODE" | "POD" | "CONTAINER" | "TARGET"; targetId?: string } {
  const pid = pod.spec?.hostPID ? "NODE" : pod.spec?.shareProcessNamespace ? "POD" : "CONTAINER";
  return targetId && pid === "CONTAINER" ? { pid: "TARGET", targetId } : { pid };
}

/**
 * The kubelet's translateMountPropagation: None (or unset) is private, HostToContainer rslave,
 * Bidirectional rshared (validation allows it to privileged containers only).
 */
export function mountPropagation(mode: string | undefined): "PROPAGATION_PRIVATE" | "PROPAGATION_HOST_TO_CONTAINER" | "PROPAGATION_BIDIRECTIONAL" {
  if (mode === "HostToContainer") return "PROPAGATION_HOST_TO_CONTAINER";
  if (mode === "Bidirectional") return "PROPAGATION_BIDIRECTIONAL";
  return "PROPAGATION_PRIVATE";
}

export interface ContainerConfigArgs {
  pod: Pod;
  container: Container;
  init: boolean;
  /**
   * An ephemeral container (spec.ephemeralContainers), with the runtime ID of its targetContainerName's
   * instance when it names one: it then shares that container's PID namespace (ephemeral-containers).
   */
  ephemeral?: { targetId?: string };
  restartCount: number;
  podIP: string;
  imageRef: string;
  options: RuntimeConfigOptions;
  /**
   * The container's resolved environment (src/objects makeEnvironmentVariables: envFrom, key refs,
   * downward API, $(VAR) expanded). Without it, the env list alone is used (containerEnv).
   */
  env?: { key: string; value: string }[];
  /** The volume manager's answer for each volumeMount (made before any container is created). */
  volumePath: VolumePathLookup;
  /**
   * The pod's hosts file on the node when this container gets it at /etc/hosts (etc-hosts.ts
   * mountsEtcHosts, written by the caller); undefined when it does not.
   */
  etcHosts?: string;
}

export function containerConfig(a: ContainerConfigArgs): ContainerConfigInput {
  const { pod, container: c, options: o } = a;
  const ref = podRef(pod);
  const env = a.env ?? containerEnv(pod, c, o, a.podIP);
  const vars = new Map(env.map((e) => [e.key, e.value]));
  const sc = c.securityContext ?? {};
  const psc = pod.spec?.securityContext ?? {};
  const runAsUser = sc.runAsUser ?? psc.runAsUser;
  const runAsGroup = sc.runAsGroup ?? psc.runAsGroup;
  const mounts: NonNullable<ContainerConfigInput["mounts"]> = (c.volumeMounts ?? []).map((m) => {
    // subPathExpr expanded from the container's resolved environment (may throw SubPathError).
    const hostPath = a.volumePath(m.name, mountSubPath(m, vars));
    // Every volume is made before a container is created (the volume manager): a mount without one
    // would run the container without the data it expects, so it is an error, never dropped.
    if (hostPath === undefined) throw new Error(`volumeMount "${m.name}" of container "${c.name}" names no volume the pod has made`);
    // configMap, secret, downwardAPI and projected volumes are read-only whatever the volumeMount says
    // (the kubelet's makeMounts: ReadOnly || mustMountRO, since CVE-2017-1002102).
    const volume = pod.spec?.volumes?.find((v) => v.name === m.name);
    const readonly = m.readOnly === true || (volume !== undefined && mustMountReadOnly(volume));
    // containerd 1.6 and 1.7 cannot make a mount recursively read-only (their RuntimeHandlers do not
    // offer RecursiveReadOnlyMounts): the kubelet's resolveRecursiveReadOnly refuses Enabled with this
    // message and takes IfPossible as a plain read-only mount.
    if (m.recursiveReadOnly === "Enabled")
      throw new Error(
        `failed to resolve recursive read-only mode: volume ${JSON.stringify(m.name)} requested recursive read-only mode, but it is not supported by the runtime`,
      );
    return { containerPath: m.mountPath, hostPath, readonly, propagation: mountPropagation(m.mountPropagation) };
  });
  // The managed hosts file after the volumes, writable and relabelled, as the kubelet's makeHostsMount.
  if (a.etcHosts !== undefined)
    mounts.push({ containerPath: ETC_HOSTS_PATH, hostPath: a.etcHosts, readonly: false, selinuxRelabel: true, propagation: "PROPAGATION_PRIVATE" });
  if (c.terminationMessagePath) {
    mounts.push({
      containerPath: c.terminationMessagePath,
      hostPath: confinedPath(terminationLogDir(pod, c.name, o), `${a.restartCount}-termination-log`),
      readonly: false,
      propagation: "PROPAGATION_PRIVATE",
    });
  }
  const preStop = c.lifecycle?.preStop;
  // seccomp, AppArmor, SELinux and /proc masking as the kubelet's determineEffectiveSecurityContext
  // (security-context.ts); a Localhost profile that cannot be named throws (CreateContainerConfigError).
  const seccomp = containerSeccompProfile(pod, c, seccompProfileRoot(o));
  const apparmor = containerAppArmorProfile(pod, c);
  return {
    metadata: { name: c.name, attempt: a.restartCount },
    image: { image: a.imageRef || c.image || "" },
    // As the kubelet: command overrides the image's entrypoint, args its cmd; both expand $(VAR).
    command: (c.command ?? []).map((s) => expandVars(s, vars)),
    args: (c.args ?? []).map((s) => expandVars(s, vars)),
    workingDir: c.workingDir ?? "",
    envs: env,
    mounts,
    labels: containerLabels(ref, c.name),
    annotations: {
      [ann.CONTAINER_HASH]: ann.containerHash(c),
      [ann.CONTAINER_RESTART_COUNT]: String(a.restartCount),
      [ann.CONTAINER_TERMINATION_MESSAGE_PATH]: c.terminationMessagePath ?? "",
      [ann.CONTAINER_TERMINATION_MESSAGE_POLICY]: c.terminationMessagePolicy ?? "File",
      [ann.POD_TERMINATION_GRACE_PERIOD]: String(pod.spec?.terminationGracePeriodSeconds ?? 30),
      [ann.CONTAINER_TYPE]: a.ephemeral ? "ephemeral" : a.init ? "init" : "app",
      ...(preStop ? { [ann.CONTAINER_PRESTOP_HANDLER]: JSON.stringify(preStop) } : {}),
    },
    logPath: `${nameSegment(c.name)}/${a.restartCount}.log`,
    stdin: c.stdin === true,
    stdinOnce: c.stdinOnce === true,
    tty: c.tty === true,
    linux: {
      resources: linuxResources(pod, c, o.memoryCapacityBytes, o.cluster ?? false),
      securityContext: {
        capabilities: { addCapabilities: sc.capabilities?.add ?? [], dropCapabilities: sc.capabilities?.drop ?? [] },
        privileged: sc.privileged === true,
        namespaceOptions: {
          network: pod.spec?.hostNetwork ? "NODE" : "POD",
          ipc: pod.spec?.hostIPC ? "NODE" : "POD",
          ...pidNamespace(pod, a.ephemeral?.targetId),
        },
        runAsUser: runAsUser !== undefined ? { value: runAsUser } : null,
        runAsGroup: runAsGroup !== undefined ? { value: runAsGroup } : null,
        runAsUsername: "",
        readonlyRootfs: sc.readOnlyRootFilesystem === true,
        // determineEffectiveSecurityContext: the pod's fsGroup joins the process's groups, which is what
        // lets a non-root container read and write the volumes made group-owned by it (src/volume).
        supplementalGroups: podSupplementalGroups(pod),
        ...supplementalGroupsPolicy(pod),
        noNewPrivs: sc.allowPrivilegeEscalation === false,
        seccomp,
        ...apparmor,
        selinuxOptions: containerSeLinuxOption(pod, c),
        // procMount: the kubelet's explicit masked and read-only paths (Default) or none (Unmasked);
        // containerd applies only these (its own defaults are cleared), and none for privileged.
        ...procMountPaths(c),
      },
    },
  };
}
