// What the in-memory runtime (memory-runtime.ts) keeps of each sandbox and container, and the CRI
// answers built from it on demand. A record holds the config's labels, annotations and resources by
// reference (not copied: the agent builds a config per call and never changes it afterwards) and the
// few scalars a status needs; every list and status answer is a fresh object, garbage after the call.
import type { Container, ContainerFilterInput, ContainerState, ContainerStatus, LinuxContainerResourcesInput } from "./types";
import type { PodSandbox, PodSandboxFilterInput, PodSandboxState, PodSandboxStatus } from "./types";
import type { PodBehaviour } from "./memory-behaviour";

export interface MemorySandbox {
  id: string;
  uid: string;
  name: string;
  namespace: string;
  attempt: number;
  state: PodSandboxState;
  /** Nanoseconds since the epoch, as the CRI's timestamps. */
  createdAt: number;
  /** The pod's IP; "" for a sandbox in the host's network namespace. */
  ip: string;
  /** The sandbox's network namespace mode; undefined for sandboxes a test added by hand. */
  network?: "POD" | "NODE";
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The pod's hollow.nodeagent.io/ annotations, parsed once; undefined when it has none. */
  behaviour?: PodBehaviour;
}

export interface MemoryContainer {
  id: string;
  sandboxId: string;
  name: string;
  attempt: number;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The container's cgroup values: the config's, then UpdateContainerResources'. */
  resources?: LinuxContainerResourcesInput;
  /** The image as the config named it (the agent passes the pulled image's ID). */
  image: string;
}

/** How a container's image appears in its status and list entry: containerd's image, imageRef and imageId. */
export interface ImageView {
  image: string;
  imageRef: string;
  imageId: string;
}

/** CRI label selectors: every key must be present with that value. */
export function labelsMatch(labels: Record<string, string>, selector: Record<string, string> | undefined | null): boolean {
  if (!selector) return true;
  for (const k in selector) if (labels[k] !== selector[k]) return false;
  return true;
}

export function sandboxMatches(s: MemorySandbox, filter: PodSandboxFilterInput | undefined | null): boolean {
  return !filter || ((!filter.id || s.id === filter.id) && (!filter.state || s.state === filter.state.state) && labelsMatch(s.labels, filter.labelSelector));
}

export function containerMatches(c: MemoryContainer, filter: ContainerFilterInput | undefined | null): boolean {
  return (
    !filter ||
    ((!filter.id || c.id === filter.id) &&
      (!filter.podSandboxId || c.sandboxId === filter.podSandboxId) &&
      (!filter.state || c.state === filter.state.state) &&
      labelsMatch(c.labels, filter.labelSelector))
  );
}

export function sandboxOut(s: MemorySandbox): PodSandbox {
  return {
    id: s.id,
    metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: s.attempt },
    state: s.state,
    createdAt: s.createdAt,
    labels: s.labels,
    annotations: s.annotations,
    runtimeHandler: "",
  };
}

export function sandboxStatusOut(s: MemorySandbox): PodSandboxStatus {
  return {
    id: s.id,
    metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: s.attempt },
    state: s.state,
    createdAt: s.createdAt,
    network: { ip: s.ip, additionalIps: [] },
    linux: s.network ? { namespaces: { options: { network: s.network, pid: "CONTAINER", ipc: "POD", targetId: "", usernsOptions: null } } } : null,
    labels: s.labels,
    annotations: s.annotations,
    runtimeHandler: "",
  } as PodSandboxStatus;
}

export function containerOut(c: MemoryContainer, img: ImageView): Container {
  return {
    id: c.id,
    podSandboxId: c.sandboxId,
    metadata: { name: c.name, attempt: c.attempt },
    image: { image: img.image, annotations: {}, userSpecifiedImage: "", runtimeHandler: "" },
    imageRef: img.imageRef,
    state: c.state,
    createdAt: c.createdAt,
    labels: c.labels,
    annotations: c.annotations,
    imageId: img.imageId,
  };
}

export function containerStatusOut(c: MemoryContainer, img: ImageView, logPath: string): ContainerStatus {
  return {
    id: c.id,
    metadata: { name: c.name, attempt: c.attempt },
    state: c.state,
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.exitCode,
    reason: c.reason,
    message: c.message ?? "",
    labels: c.labels,
    annotations: c.annotations,
    image: { image: img.image, annotations: {}, userSpecifiedImage: "", runtimeHandler: "" },
    imageRef: img.imageRef,
    mounts: [],
    logPath,
    resources: c.resources ? { linux: c.resources, windows: null } : null,
    imageId: img.imageId,
    user: null,
  } as ContainerStatus;
}
