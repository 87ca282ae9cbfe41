// Which runtime a command talks to: the --runtime-endpoint given, else a CRI socket at a standard
// path, else a containerd that nodeagent starts itself under --root-dir (ManagedContainerd).
import { existsSync, statSync } from "node:fs";
import type { Logger } from "../util";
import { ManagedContainerd, findContainerd } from "./managed";

export const STANDARD_ENDPOINTS = ["/run/containerd/containerd.sock", "/var/run/crio/crio.sock"];

export interface ResolvedRuntime {
  endpoint: string;
  /** Set when nodeagent started (or adopted) a containerd of its own. */
  managed?: ManagedContainerd;
  /** Stops the managed containerd if this process started it; the pods' containers keep running. */
  release(): Promise<void>;
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

export async function resolveRuntime(o: { endpoint?: string; rootDir: string; podInfraImage: string; log: Logger }): Promise<ResolvedRuntime> {
  const noop = async () => {};
  if (o.endpoint) return { endpoint: o.endpoint, release: noop };
  for (const path of STANDARD_ENDPOINTS) {
    if (isSocket(path)) {
      o.log.info("using the CRI runtime", { path });
      return { endpoint: `unix://${path}`, release: noop };
    }
  }
  const bin = findContainerd();
  if (!bin) {
    throw new Error(
      `no CRI runtime: none of ${STANDARD_ENDPOINTS.join(", ")} exists and containerd is not installed; ` +
        "pass --runtime-endpoint, or install containerd (scripts/install-node.sh)",
    );
  }
  if (!existsSync(o.rootDir)) o.log.info("creating the root directory", { path: o.rootDir });
  const managed = new ManagedContainerd({ rootDir: o.rootDir, containerdBin: bin, sandboxImage: o.podInfraImage, log: o.log });
  const startedHere = await managed.start();
  return {
    endpoint: managed.endpoint,
    managed,
    release: async () => {
      if (startedHere) await managed.stop();
    },
  };
}
