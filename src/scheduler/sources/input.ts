// The objects `schedule` reads: pods to place, and a cluster dump (`kubectl get nodes,pods -A -o
// yaml`, or any List, multi-document YAML or JSON) with nodes, bound pods, pending pods, namespaces,
// PriorityClasses and the Services/controllers PodTopologySpread's default constraints use. Pods to
// place get the API defaults, a UID derived from namespace/name, and their PriorityClass's priority,
// as admission would give them.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { LineCounter, parseAllDocuments } from "yaml";
import type { ReplicaSet, StatefulSet } from "kubernetes-types/apps/v1";
import type { Namespace, Node, Pod, ReplicationController, Service } from "kubernetes-types/core/v1";
import type { PriorityClass } from "kubernetes-types/scheduling/v1";
import { applyPodDefaults, SYSTEM_PRIORITY_CLASSES } from "../../api";
import { ConfigError, errorMessage } from "../../util";
import { Workloads } from "../model/default-selector";

/** Objects that cannot be read or used: bad input (src/util ConfigError, exit 2). */
export class InputError extends ConfigError {
  override name = "InputError";
}

export interface LocatedObject {
  object: Record<string, unknown>;
  /** "file:line" of the document (or list item) it came from. */
  origin: string;
}

export interface ClusterObjects {
  nodes: Node[];
  pods: Array<{ pod: Pod; origin: string }>;
  namespaces: Namespace[];
  priorityClasses: PriorityClass[];
  workloads: Workloads;
  /** Kinds that were present and are not used. */
  ignoredKinds: Set<string>;
}

/** Every object of a YAML or JSON text: documents, and the items of Lists (List, PodList, NodeList, …). */
export function parseObjects(text: string, file: string): LocatedObject[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { version: "1.1", lineCounter: lines, prettyErrors: false });
  const out: LocatedObject[] = [];
  for (const doc of Array.isArray(docs) ? docs : []) {
    const start = lines.linePos(doc.contents?.range?.[0] ?? doc.range?.[0] ?? 0);
    if (doc.errors.length > 0) {
      const e = doc.errors[0]!;
      const p = lines.linePos(e.pos[0]);
      throw new InputError(`${file}:${p.line}:${p.col}: invalid YAML: ${e.message.split("\n")[0]}`);
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) continue;
    const origin = `${file}:${start.line}`;
    if (typeof value !== "object" || Array.isArray(value)) throw new InputError(`${origin}: expected a Kubernetes object (a mapping with apiVersion and kind)`);
    const o = value as Record<string, unknown>;
    const kind = o.kind;
    if (typeof kind !== "string" || kind === "") throw new InputError(`${origin}: the object has no kind`);
    if (kind.endsWith("List") && Array.isArray(o.items)) {
      o.items.forEach((item, i) => {
        if (!item || typeof item !== "object" || Array.isArray(item)) throw new InputError(`${origin}: items[${i}] is not an object`);
        const it = item as Record<string, unknown>;
        // Typed lists (PodList) leave the kind off their items.
        if (!it.kind && kind !== "List") it.kind = kind.slice(0, -"List".length);
        out.push({ object: it, origin: `${origin} items[${i}]` });
      });
      continue;
    }
    out.push({ object: o, origin });
  }
  return out;
}

/** Reads files, the YAML/JSON files of directories (not recursively, sorted), or "-" for stdin. */
export function readPaths(paths: readonly string[], readStdin: () => string): LocatedObject[] {
  const out: LocatedObject[] = [];
  for (const p of paths) {
    if (p === "-") {
      out.push(...parseObjects(readStdin(), "<stdin>"));
      continue;
    }
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      throw new InputError(`${p}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : errorMessage(e)}`);
    }
    const files = st.isDirectory()
      ? readdirSync(p)
          .filter((f) => !f.startsWith(".") && /\.(ya?ml|json)$/.test(f))
          .sort()
          .map((f) => join(p, f))
      : [p];
    for (const f of files) out.push(...parseObjects(readFileSync(f, "utf8"), f));
  }
  return out;
}

/** Sorts objects by kind; unknown kinds are counted, not kept. */
export function collectObjects(objects: readonly LocatedObject[]): ClusterObjects {
  const c: ClusterObjects = { nodes: [], pods: [], namespaces: [], priorityClasses: [], workloads: new Workloads(), ignoredKinds: new Set() };
  const w = c.workloads;
  const sinks: Record<string, (o: unknown, origin: string) => void> = {
    Node: (o) => c.nodes.push(o as Node),
    Pod: (o, origin) => c.pods.push({ pod: o as Pod, origin }),
    Namespace: (o) => c.namespaces.push(o as Namespace),
    PriorityClass: (o) => c.priorityClasses.push(o as PriorityClass),
    Service: (o) => w.services.push(o as Service),
    ReplicationController: (o) => w.replicationControllers.push(o as ReplicationController),
    ReplicaSet: (o) => w.replicaSets.push(o as ReplicaSet),
    StatefulSet: (o) => w.statefulSets.push(o as StatefulSet),
  };
  for (const { object, origin } of objects) {
    const sink = sinks[String(object.kind)];
    if (sink) sink(object, origin);
    else c.ignoredKinds.add(String(object.kind));
  }
  return c;
}

/** A UID that is the same every time the same namespace/name is read (so re-reading is idempotent). */
export function derivedUID(namespace: string, name: string): string {
  const h = createHash("sha256").update(`nodeagent-schedule/${namespace}/${name}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * A pod as the API server would store it: defaulted, namespaced, with a UID and the priority of its
 * PriorityClass (the Priority admission plugin). Throws InputError when it cannot be.
 */
export function preparePod(input: Pod, origin: string, classes: readonly PriorityClass[]): Pod {
  const pod = applyPodDefaults(structuredClone(input));
  const md = (pod.metadata ??= {});
  if (!md.name) throw new InputError(`${origin}: the pod has no metadata.name`);
  md.namespace ||= "default";
  if (!md.uid) (md as { uid?: string }).uid = derivedUID(md.namespace, md.name);
  const spec = pod.spec!;
  if (spec.priority === undefined || spec.priority === null) {
    const name = spec.priorityClassName;
    if (name) {
      const builtin = SYSTEM_PRIORITY_CLASSES[name];
      const pc = classes.find((c) => c.metadata?.name === name);
      if (builtin === undefined && !pc) throw new InputError(`${origin}: pod ${md.namespace}/${md.name}: no PriorityClass with name ${name} was found`);
      spec.priority = builtin ?? pc!.value;
      if (pc?.preemptionPolicy && !spec.preemptionPolicy) spec.preemptionPolicy = pc.preemptionPolicy;
    } else {
      const def = classes.find((c) => c.globalDefault);
      if (def) {
        spec.priorityClassName = def.metadata?.name;
        spec.priority = def.value;
        if (def.preemptionPolicy && !spec.preemptionPolicy) spec.preemptionPolicy = def.preemptionPolicy;
      }
    }
  }
  spec.preemptionPolicy ??= "PreemptLowerPriority";
  return pod;
}
