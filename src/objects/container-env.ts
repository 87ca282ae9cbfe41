// A container's environment from its pod and the API objects it names: the kubelet's
// makeEnvironmentVariables (k/k@1.24.1 pkg/kubelet/kubelet_pods.go).
//
// The order is the kubelet's:
//   0. The service-link variables (service-env.ts: the master `kubernetes` service always, the pod's
//      namespace's services unless enableServiceLinks is false) are worked out first, from the
//      ServiceLister. A pod from the API server waits until the services have been listed once (the
//      kubelet's `services have not yet been read at least once, cannot construct envvars`: without
//      it a pod seen right after a restart would start without KUBERNETES_SERVICE_HOST, which
//      in-cluster clients need); a static pod (file, URL, pushed) does not wait.
//   1. envFrom, in list order: every key of the configMap's `data` / the secret's `data`, with the
//      source's prefix; a key that is then not a valid env var name (IsEnvVarName) is skipped, and the
//      skipped keys of one source are reported together as a Warning InvalidEnvironmentVariableNames.
//      A later source overrides an earlier one.
//   2. env, in list order, overriding envFrom: `value` with $(VAR) expanded against everything set so
//      far (envFrom keys and earlier env entries), then the service variables (the kubelet's
//      MappingFuncFor(tmpEnv, serviceEnv)); unknown references stay as written. Or `valueFrom` —
//      fieldRef / resourceFieldRef (the downward API, a callback the caller gives),
//      configMapKeyRef / secretKeyRef.
//   3. The service variables that envFrom and env did not set, after them: they are the lowest.
//
// A missing object or key that is not optional fails the whole environment with the kubelet's message
// (`configmap "x" not found`, `couldn't find key K in ConfigMap ns/x`): the container is not created
// and waits with reason CreateContainerConfigError until a later sync finds the object. An optional
// one is skipped: a missing optional envFrom source adds nothing, a missing optional key leaves the
// variable as envFrom set it (or unset). Only NotFound is forgiven by `optional`: any other failure to
// read the object (forbidden, no object source) fails the container, as in the kubelet.
import type { ConfigMap, Container, EnvVarSource, Pod, Secret } from "kubernetes-types/core/v1";
import { expandVars, isEnvVarName, isStaticPod } from "../api";
import { errorMessage } from "../util";
import { secretData } from "./secret-data";
import { SERVICES_NOT_SYNCED, serviceEnvVarMap } from "./service-env";
import { ObjectNotFoundError, type ObjectSource, type ServiceLister } from "./types";

/** The waiting reason of a container whose config could not be made (kuberuntime ErrCreateContainerConfig). */
export const CREATE_CONTAINER_CONFIG_ERROR = "CreateContainerConfigError";

/**
 * The container's config cannot be made from the pod and its objects. The pod sync shows `reason`
 * as the container's waiting reason and the message verbatim, and retries the pod later.
 */
export class ContainerConfigError extends Error {
  readonly reason = CREATE_CONTAINER_CONFIG_ERROR;
  constructor(message: string) {
    super(message);
    this.name = "ContainerConfigError";
  }
}

/** One variable as the CRI takes it. */
export interface EnvEntry {
  key: string;
  value: string;
}

/** A Warning the kubelet records as an event on the pod (here the caller logs it). */
export interface EnvWarning {
  reason: "InvalidEnvironmentVariableNames";
  message: string;
}

export interface ContainerEnv {
  /** In the order the variables were first set; a later source overrides the value, not the place. */
  env: EnvEntry[];
  warnings: EnvWarning[];
}

/** The value of a fieldRef / resourceFieldRef source for this container (the downward API). */
export type DownwardEnvValue = (source: EnvVarSource) => string;

/**
 * Resolves the container's environment (see the top of the file).
 * @throws ContainerConfigError, with the kubelet's message
 */
export async function makeEnvironmentVariables(
  pod: Pod,
  container: Container,
  objects: ObjectSource,
  downward: DownwardEnvValue,
  services: ServiceLister,
): Promise<ContainerEnv> {
  const namespace = pod.metadata?.namespace ?? "default";
  if (!isStaticPod(pod) && !services.hasSynced()) throw new ContainerConfigError(SERVICES_NOT_SYNCED);
  // The API server defaults enableServiceLinks to true; only an explicit false turns the links off.
  const serviceEnv = serviceEnvVarMap(services.list(), namespace, pod.spec?.enableServiceLinks !== false);
  const getter = new ObjectGetter(objects, namespace);
  const vars = new Map<string, string>();
  const warnings: EnvWarning[] = [];

  for (const from of container.envFrom ?? []) {
    let kind: "configMap" | "secret";
    let name: string;
    let data: Map<string, string> | undefined;
    if (from.configMapRef) {
      kind = "configMap";
      name = from.configMapRef.name ?? "";
      const cm = await getter.configMap(name, from.configMapRef.optional === true);
      data = cm && new Map(Object.entries(cm.data ?? {}));
    } else if (from.secretRef) {
      kind = "secret";
      name = from.secretRef.name ?? "";
      const secret = await getter.secret(name, from.secretRef.optional === true);
      data = secret && new Map([...secretData(secret)].map(([k, v]) => [k, Buffer.from(v).toString("utf8")]));
    } else {
      continue;
    }
    if (!data) continue; // optional and absent
    const invalid: string[] = [];
    for (const [key, value] of data) {
      const k = (from.prefix ?? "") + key;
      if (isEnvVarName(k).length > 0) {
        invalid.push(k);
        continue;
      }
      vars.set(k, value);
    }
    if (invalid.length > 0) {
      invalid.sort();
      warnings.push({
        reason: "InvalidEnvironmentVariableNames",
        message: `Keys [${invalid.join(", ")}] from the EnvFrom ${kind} ${namespace}/${name} were skipped since they are considered invalid environment variable names.`,
      });
    }
  }

  for (const e of container.env ?? []) {
    let value: string;
    const from = e.valueFrom;
    if (e.value) {
      value = expandVars(e.value, { has: (k) => vars.has(k) || serviceEnv.has(k), get: (k) => (vars.has(k) ? vars.get(k) : serviceEnv.get(k)) });
    } else if (from?.configMapKeyRef) {
      const ref = from.configMapKeyRef;
      const name = ref.name ?? "";
      const optional = ref.optional === true;
      const cm = await getter.configMap(name, optional);
      if (!cm) continue;
      const v = cm.data?.[ref.key];
      if (v === undefined) {
        if (optional) continue;
        throw new ContainerConfigError(`couldn't find key ${ref.key} in ConfigMap ${namespace}/${name}`);
      }
      value = v;
    } else if (from?.secretKeyRef) {
      const ref = from.secretKeyRef;
      const name = ref.name ?? "";
      const optional = ref.optional === true;
      const secret = await getter.secret(name, optional);
      if (!secret) continue;
      const v = secretData(secret).get(ref.key);
      if (v === undefined) {
        if (optional) continue;
        throw new ContainerConfigError(`couldn't find key ${ref.key} in Secret ${namespace}/${name}`);
      }
      value = Buffer.from(v).toString("utf8");
    } else if (from?.fieldRef || from?.resourceFieldRef) {
      value = downward(from);
    } else {
      value = "";
    }
    vars.set(e.name, value);
  }

  const env = [...vars].map(([key, value]) => ({ key, value }));
  for (const [key, value] of serviceEnv) if (!vars.has(key)) env.push({ key, value });
  return { env, warnings };
}

/**
 * Reads each named object once per resolution (the kubelet keeps them in a map for the call): an
 * object named by several entries is read once and every entry sees the same version.
 */
class ObjectGetter {
  private readonly configMaps = new Map<string, ConfigMap | undefined>();
  private readonly secrets = new Map<string, Secret | undefined>();

  constructor(
    private readonly objects: ObjectSource,
    private readonly namespace: string,
  ) {}

  /** The configMap, or undefined when it does not exist and `optional` allows that. */
  configMap(name: string, optional: boolean): Promise<ConfigMap | undefined> {
    return this.get(this.configMaps, name, optional, () => this.objects.getConfigMap(this.namespace, name));
  }

  secret(name: string, optional: boolean): Promise<Secret | undefined> {
    return this.get(this.secrets, name, optional, () => this.objects.getSecret(this.namespace, name));
  }

  private async get<T>(cache: Map<string, T | undefined>, name: string, optional: boolean, read: () => Promise<T>): Promise<T | undefined> {
    // A NotFound is not cached: the next entry naming the object may not be optional, and must fail.
    const cached = cache.get(name);
    if (cached !== undefined) return cached;
    try {
      const obj = await read();
      cache.set(name, obj);
      return obj;
    } catch (err) {
      if (err instanceof ObjectNotFoundError && optional) return undefined;
      // The source's message verbatim: ObjectNotFoundError's is the API server's `configmap "x" not found`.
      throw new ContainerConfigError(errorMessage(err));
    }
  }
}
