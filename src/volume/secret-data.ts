// A Secret's values as bytes. The API carries `data` base64-encoded (Go's []byte in JSON); `stringData`
// is a write-only convenience the API server merges into `data` on write, stringData winning
// (pkg/apis/core/v1/conversion.go). Objects read from the API never carry it, but a Secret manifest
// read from --local-objects may, so it is honoured here as the API server would.
import type { Secret } from "kubernetes-types/core/v1";

/** Every key of the Secret with its bytes, stringData over data. */
export function secretData(secret: Secret): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [k, v] of Object.entries(secret.data ?? {})) out.set(k, Buffer.from(v, "base64"));
  for (const [k, v] of Object.entries(secret.stringData ?? {})) out.set(k, Buffer.from(v, "utf8"));
  return out;
}
