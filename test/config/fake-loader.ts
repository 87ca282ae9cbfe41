// A stand-in for src/manifest's loader: JSON only, either the shorthand {"name","image","namespace"?,
// "labels"?} or a Pod object, or a {"items": [...]} list (for the URL source). It names and hashes
// the pod the way the real loader does for static pods, so the UID changes with content and location.
import { createHash } from "node:crypto";
import type { Pod } from "kubernetes-types/core/v1";
import type { LoadResult, ManifestError, PodLoader, PodOrigin } from "../../src/manifest/types";
import { createLogger, type Logger } from "../../src/util/log";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../../src/api/annotations";

interface Shorthand {
  name?: string;
  namespace?: string;
  image?: string;
  labels?: Record<string, string>;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: { containers?: { image?: string }[] };
  items?: unknown[];
}

function error(origin: PodOrigin, field: string, message: string): ManifestError {
  return { file: origin.location, line: 1, column: 1, field, message };
}

function toPod(doc: Shorthand, text: string, origin: PodOrigin, index: number): Pod | ManifestError {
  const name = doc.kind === "Pod" ? doc.metadata?.name : doc.name;
  const image = doc.kind === "Pod" ? doc.spec?.containers?.[0]?.image : doc.image;
  const namespace = (doc.kind === "Pod" ? doc.metadata?.namespace : doc.namespace) ?? "default";
  const labels = doc.kind === "Pod" ? doc.metadata?.labels : doc.labels;
  if (!name) return error(origin, "metadata.name", "name is needed for the pod");
  if (!image) return error(origin, "spec.containers[0].image", "Required value");
  const uid = createHash("sha256").update(`${text}\n${index}\nhost:${origin.nodeName}\n${origin.source}:${origin.location}`).digest("hex").slice(0, 32);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: origin.source === "push" ? name : `${name}-${origin.nodeName}`,
      namespace,
      uid,
      ...(labels ? { labels } : {}),
      annotations: { [CONFIG_HASH_ANNOTATION]: uid, [CONFIG_SOURCE_ANNOTATION]: origin.source },
    },
    spec: { nodeName: origin.nodeName, containers: [{ name: "c", image }] },
    status: { phase: "Pending" },
  };
}

export const fakeLoader: PodLoader = (text: string, origin: PodOrigin): LoadResult => {
  if (text.includes("INVALID")) return { ok: false, errors: [error(origin, "", "INVALID marker found")] };
  let doc: Shorthand;
  try {
    doc = JSON.parse(text) as Shorthand;
  } catch (e) {
    return { ok: false, errors: [error(origin, "", `couldn't parse as pod: ${(e as Error).message}`)] };
  }
  const docs = Array.isArray(doc.items) ? (doc.items as Shorthand[]) : [doc];
  const pods: Pod[] = [];
  const errors: ManifestError[] = [];
  docs.forEach((d, i) => {
    const r = toPod(d, text, origin, i);
    if ("message" in r) errors.push(r);
    else pods.push(r);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, pods };
};

/** A shorthand manifest's text. */
export function manifest(name: string, image = "busybox", extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ name, image, ...extra });
}

/** A logger that prints nothing. */
export function quietLog(): Logger {
  return createLogger("text", -999);
}
