// Per-pod suppression, in the style of kube-score's `kube-score/ignore` annotation: the pod lists the
// rule ids it does not want to hear about, comma-separated, in one annotation of its own metadata.
export const IGNORE_ANNOTATION = "lint.nodeagent.io/ignore";

export interface IgnoreAnnotation {
  key: string;
  /** Where the annotation is, to position a finding about it. */
  field: string;
  rules: string[];
}

/** The rule ids a decoded manifest's annotation names (none when it has no such annotation). */
export function parseIgnoreAnnotation(manifest: Record<string, unknown>): IgnoreAnnotation {
  const field = `metadata.annotations[${IGNORE_ANNOTATION}]`;
  const meta = manifest.metadata;
  const annotations = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>).annotations : undefined;
  const value = typeof annotations === "object" && annotations !== null ? (annotations as Record<string, unknown>)[IGNORE_ANNOTATION] : undefined;
  const rules =
    typeof value === "string"
      ? value
          .split(",")
          .map((r) => r.trim())
          .filter((r) => r !== "")
      : [];
  return { key: IGNORE_ANNOTATION, field, rules };
}
