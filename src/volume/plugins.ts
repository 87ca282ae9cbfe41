// The node's volume plugins: each kind the agent makes (src/volume/set-up.ts) as a VolumePlugin the
// VolumeManager drives — the kubelet's configmap, secret, downward-api and projected plugins (set up
// again on every pod sync: their content follows objects and the pod, RequiresRemount), empty-dir (disk,
// or a tmpfs for medium Memory) and host-path. Any other kind matches no plugin, and its pod waits
// with FailedMount instead of running without the volume.
import type { Pod, Volume } from "kubernetes-types/core/v1";
import { unmountAndRemove } from "./mount";
import {
  setUpConfigMapVolume,
  setUpDownwardAPIVolume,
  setUpEmptyDirVolume,
  setUpHostPathVolume,
  setUpProjectedVolume,
  setUpSecretVolume,
  type VolumeHost,
} from "./set-up";
import type { VolumePlugin } from "./types";

type SetUp = (pod: Pod, v: Volume, host: VolumeHost) => Promise<string> | string;

/** A kind made under the pod's volumes folder; the manager's folder and set-up.ts's are the same path. */
function plugin(name: string, requiresRemount: boolean, canSupport: (v: Volume) => boolean, setUp: SetUp, host: VolumeHost): VolumePlugin {
  return {
    name,
    requiresRemount,
    canSupport,
    setUp: async (pod, v) => setUp(pod, v, host),
    // The manager has unmounted what was mounted below; this removes the folder, never outside podsDir.
    tearDown: (dir) => unmountAndRemove(host.podsDir, dir, host.mounter),
  };
}

export function nodeVolumePlugins(host: VolumeHost): VolumePlugin[] {
  return [
    plugin("kubernetes.io/configmap", true, (v) => v.configMap !== undefined, setUpConfigMapVolume, host),
    plugin("kubernetes.io/secret", true, (v) => v.secret !== undefined, setUpSecretVolume, host),
    plugin("kubernetes.io/downward-api", true, (v) => v.downwardAPI !== undefined, setUpDownwardAPIVolume, host),
    plugin("kubernetes.io/projected", true, (v) => v.projected !== undefined, setUpProjectedVolume, host),
    plugin("kubernetes.io/empty-dir", false, (v) => v.emptyDir !== undefined, setUpEmptyDirVolume, host),
    // The host's own path: nothing of the agent's to remove.
    {
      name: "kubernetes.io/host-path",
      requiresRemount: false,
      canSupport: (v) => v.hostPath !== undefined,
      setUp: async (pod, v) => setUpHostPathVolume(pod, v, host),
      tearDown: async () => {},
    },
  ];
}
