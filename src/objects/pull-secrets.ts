// A pod's imagePullSecrets turned into registry credentials for the CRI's PullImage, as the kubelet does:
// - getPullSecretsForPod (k/k@1.24.1 pkg/kubelet/kubelet.go): each named secret is read from the
//   object source; one that cannot be read (missing, forbidden) is only logged — "Unable to retrieve
//   pull secret, the image pull may not succeed." — and the pull goes on without it. Entries with an
//   empty name are skipped without a word (API validation let them through, issue 99454).
// - MakeDockerKeyring (pkg/credentialprovider/secrets/secrets.go): secrets of type
//   kubernetes.io/dockerconfigjson (key .dockerconfigjson, `{"auths": {...}}`) and the legacy
//   kubernetes.io/dockercfg (key .dockercfg, the bare map) go into one keyring; other types and empty
//   keys are ignored; a secret whose content does not parse fails the pull (ErrImagePull).
// - PullImage (pkg/kubelet/kuberuntime/kuberuntime_image.go): no matching credentials → one pull
//   without auth; otherwise each matching credential in turn until a pull succeeds, the errors of
//   the failed tries aggregated (utilerrors.NewAggregate) when none does.
import type { Pod, Secret } from "kubernetes-types/core/v1";
import type { AuthConfigInput } from "../cri";
import { errorMessage, type Logger } from "../util";
import { DockerKeyring, imageRepository, parseDockerConfig } from "./docker-keyring";
import { secretData } from "./secret-data";
import type { ObjectSource } from "./types";

const SECRET_TYPE_DOCKER_CONFIG_JSON = "kubernetes.io/dockerconfigjson";
const DOCKER_CONFIG_JSON_KEY = ".dockerconfigjson";
const SECRET_TYPE_DOCKERCFG = "kubernetes.io/dockercfg";
const DOCKERCFG_KEY = ".dockercfg";

/** The pod's imagePullSecrets that could be read, in the pod's order; the others are logged and left out. */
export async function podPullSecrets(pod: Pod, objects: ObjectSource, log: Logger): Promise<Secret[]> {
  const namespace = pod.metadata?.namespace ?? "default";
  const out: Secret[] = [];
  for (const ref of pod.spec?.imagePullSecrets ?? []) {
    if (!ref.name) continue;
    try {
      out.push(await objects.getSecret(namespace, ref.name));
    } catch (err) {
      log.warn("Unable to retrieve pull secret, the image pull may not succeed.", {
        pod: `${namespace}/${pod.metadata?.name ?? ""}`,
        secret: `${namespace}/${ref.name}`,
        err,
      });
    }
  }
  return out;
}

/**
 * One keyring from every docker config secret.
 * @throws DockerConfigError when a secret of a docker config type does not parse
 */
export function makeDockerKeyring(secrets: Secret[]): DockerKeyring {
  const keyring = new DockerKeyring();
  for (const s of secrets) {
    const data = secretData(s);
    const json = data.get(DOCKER_CONFIG_JSON_KEY);
    const cfg = data.get(DOCKERCFG_KEY);
    if (s.type === SECRET_TYPE_DOCKER_CONFIG_JSON && json && json.length > 0) keyring.add(parseDockerConfig(Buffer.from(json).toString("utf8"), true));
    else if (s.type === SECRET_TYPE_DOCKERCFG && cfg && cfg.length > 0) keyring.add(parseDockerConfig(Buffer.from(cfg).toString("utf8"), false));
  }
  return keyring;
}

/**
 * Pulls the image with the keyring's credentials for it: without auth when none match, else with each
 * in turn until one pull succeeds. Rejects with the one error, or `[e1, e2]` for several distinct ones.
 */
export async function pullWithCredentials(
  image: string,
  keyring: DockerKeyring,
  pull: (auth: AuthConfigInput | undefined) => Promise<string>,
): Promise<string> {
  const creds = keyring.lookup(imageRepository(image));
  if (creds.length === 0) return pull(undefined);
  const errors: unknown[] = [];
  for (const c of creds) {
    try {
      // kuberuntime_image.go copies auth, serverAddress and the tokens too; a keyring built from
      // secrets only ever fills username and password.
      return await pull({ username: c.username, password: c.password });
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  throw new Error(aggregateMessage(errors));
}

/** utilerrors aggregate's Error(): one message alone, or the distinct messages in brackets. */
function aggregateMessage(errors: unknown[]): string {
  const msgs = [...new Set(errors.map(errorMessage))];
  return msgs.length === 1 ? msgs[0]! : `[${msgs.join(", ")}]`;
}
