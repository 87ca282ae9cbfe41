// What a stored Pod reads back as from kube-apiserver, where Go's JSON differs from what was written: a
// container status's `state` and `lastState` are structs (ContainerState, not pointers), which
// encoding/json writes as `{}` even when empty and omitempty — so a real server answers `lastState: {}`
// for a container that never terminated, whatever the client sent (absent, or null in a patch). A
// client comparing its status with the server's copy must see that as no change; the agent once
// re-PATCHed every running pod every 10 s against a real server over it, unseen here.
import type { ContainerStatus, Pod } from "kubernetes-types/core/v1";

export function asServedPod(pod: Pod): Pod {
  const s = pod.status;
  if (!s) return pod;
  const fill = (list: ContainerStatus[] | undefined) => list?.map((c) => ({ ...c, state: c.state ?? {}, lastState: c.lastState ?? {} }));
  const status = { ...s };
  for (const key of ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] as const) if (s[key]) status[key] = fill(s[key]);
  return { ...pod, status };
}
