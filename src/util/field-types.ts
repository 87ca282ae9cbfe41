// The Go types a configuration file's fields may have (as k8s.io/kubelet/config/v1beta1/types.go
// declares the KubeletConfiguration's), nested blocks included, so that a --config file is
// type-checked as the kubelet's JSON decoding checks it, field by field, before any value is used:
// `authentication: []`, `authentication.x509: 5` or `evictionHard: {memory.available: [1]}` are
// errors naming the file, line and field path (issue 24: they were taken silently, and a field a
// flag overrode was not looked at). Every field is checked whether or not a flag overrides it.
//
// Only types here; each setting row (util/settings.ts) names its field's type, and the values (ranges,
// durations, IPs, paths) are checked by the row's parser. A null
// is accepted anywhere, as Go's JSON decoding leaves the field at its zero value.

/** A field's type, as JSON decoding into the Go type would accept it. */
export type FieldType = (
  | { kind: "string" | "bool" | "int" }
  /** map[string]string of quantities or thresholds: nodeagent also takes a YAML number (cpu: 1), as it always has. */
  | { kind: "quantityMap" }
  | { kind: "list"; of: FieldType }
  | { kind: "map"; of: FieldType }
  | { kind: "struct"; fields: Readonly<Record<string, FieldType>> }
) & {
  /** What the message says is expected, when more telling than the kind ("a duration such as \"20s\""). */
  expected?: string;
};

export const STRING: FieldType = { kind: "string" };
export const BOOL: FieldType = { kind: "bool" };
export const INT: FieldType = { kind: "int" };
/** metav1.Duration: a string such as "20s" (its value is checked where it is used). */
export const DURATION: FieldType = { kind: "string", expected: 'a duration such as "20s"' };
export const STRINGS: FieldType = { kind: "list", of: STRING, expected: "a list of strings" };
export const QUANTITIES: FieldType = { kind: "quantityMap" };
export const struct = (fields: Record<string, FieldType>): FieldType => ({ kind: "struct", fields });

/** One place in a value: its path below the field (["x509"], [0, "key"]), and what is wrong there, or that the key is unknown. */
export interface TypeProblem {
  path: Array<string | number>;
  message: string;
  /** A key its struct does not have (warned about, not an error: the kubelet decodes leniently). */
  unknown?: boolean;
}

export const describeValue = (v: unknown): string =>
  Array.isArray(v) ? "a list" : v !== null && typeof v === "object" ? "a mapping" : typeof v === "string" ? `the string ${JSON.stringify(v)}` : String(v);

const EXPECTED: Record<FieldType["kind"], string> = {
  string: "a string",
  bool: "true or false",
  int: "a whole number",
  quantityMap: "a mapping of names to quantities",
  list: "a list",
  map: "a mapping",
  struct: "a mapping",
};

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every place in `value` (a field's value as YAML 1.1 decodes it) that does not have its type. */
export function typeProblems(type: FieldType, value: unknown, path: Array<string | number> = []): TypeProblem[] {
  if (value === null || value === undefined) return [];
  const wrong = (): TypeProblem[] => [{ path, message: `expected ${type.expected ?? EXPECTED[type.kind]}, got ${describeValue(value)}` }];
  switch (type.kind) {
    case "string":
      return typeof value === "string" ? [] : wrong();
    case "bool":
      return typeof value === "boolean" ? [] : wrong();
    case "int":
      return typeof value === "number" && Number.isInteger(value) ? [] : wrong();
    case "quantityMap":
      if (!isMapping(value)) return wrong();
      return Object.entries(value).flatMap(([k, v]) =>
        v === null || typeof v === "string" || typeof v === "number"
          ? []
          : [{ path: [...path, k], message: `expected a quantity (a string such as "100Mi" or "10%"), got ${describeValue(v)}` }],
      );
    case "list":
      if (!Array.isArray(value)) return wrong();
      return value.flatMap((v, i) => typeProblems(type.of, v, [...path, i]));
    case "map":
      if (!isMapping(value)) return wrong();
      return Object.entries(value).flatMap(([k, v]) => typeProblems(type.of, v, [...path, k]));
    case "struct":
      if (!isMapping(value)) return wrong();
      return Object.entries(value).flatMap(([k, v]) => {
        const field = type.fields[k];
        return field ? typeProblems(field, v, [...path, k]) : [{ path: [...path, k], message: "unknown field", unknown: true }];
      });
  }
}

/** "authentication.x509.clientCAFile", "registerWithTaints[0].key". */
export function fieldPath(name: string, path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : `${s}.${p}`), name);
}

/**
 * A v1beta1 field at its zero value means "the default" (what a Go struct with the field omitted
 * decodes to): 0, "", "0s", false, null, and lists and mappings that hold nothing else.
 */
export function isZeroValue(v: unknown): boolean {
  if (v === null || v === undefined || v === 0 || v === "" || v === false || v === "0" || v === "0s") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.values(v as Record<string, unknown>).every(isZeroValue);
  return false;
}
