// Kubernetes $(VAR) expansion (third_party/forked/golang/expansion/expand.go), used for env values,
// command and args: $(NAME) is replaced by the variable's value, $$ escapes to $, and a reference to
// an unknown variable (or an unclosed "$(") stays exactly as written.

/**
 * Where $(VAR) looks names up: a map, or several looked up in order (the kubelet's MappingFuncFor
 * over a container's own variables, then the service variables).
 */
export type VarLookup = Pick<ReadonlyMap<string, string>, "has" | "get">;

/** Expands $(VAR) from vars; $$(VAR) escapes to $(VAR); unknown references stay as written. */
export function expandVars(s: string, vars: VarLookup): string {
  return s.replace(/\$\$|\$\(([^)]*)\)/g, (m, name: string | undefined) => {
    if (m === "$$") return "$";
    return name !== undefined && vars.has(name) ? vars.get(name)! : m;
  });
}
