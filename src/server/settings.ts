// The HTTP API's settings (address, port, TLS, the push token, and the kubelet's authentication and
// authorization flags with the file's `authentication`/`authorization` blocks), declared once as
// rows (util/settings.ts) and resolved here, beside the server that uses them.
import { existsSync } from "node:fs";
import {
  BOOL,
  defaultOf,
  describe,
  DURATION,
  errorMessage,
  fileDuration,
  fileInt,
  formatDuration,
  INT,
  ipAddress,
  isZeroValue,
  mustExist,
  positiveDuration,
  type Setting,
  type SettingsReader,
  STRING,
  wholeNumber,
} from "../util";
import { AUTHORIZATION_MODES, type AuthorizationMode } from "./authz";
import { readTokenFile } from "./token-file";

export interface ServerSettings {
  address: string;
  /** 0: any free port. */
  port: number;
  /** --tls-cert-file and --tls-private-key-file; without them (and without insecureHttp) a self-signed pair under <root-dir>/pki. */
  tls?: { certFile: string; keyFile: string };
  /** --insecure-http: plain HTTP, loopback only. */
  insecureHttp: boolean;
  /** --anonymous-read-only: callers without credentials may read the redacted view. */
  anonymousReadOnly: boolean;
  /** The kubelet's authentication settings (flags, else the file's `authentication` block). */
  authentication: {
    /** --client-ca-file / x509.clientCAFile: client certificates signed by it authenticate as CN, groups O. */
    clientCAFile?: string;
    /** --anonymous-auth / anonymous.enabled (default false). */
    anonymous: boolean;
    /** --authentication-token-webhook / webhook.enabled (default: on with --kubeconfig); cacheTTL 2m. */
    webhook: { enabled: boolean; cacheTTLMs: number };
  };
  /** --authorization-mode / authorization.mode: Webhook by default with --kubeconfig, else only the push token. */
  authorization: {
    mode: AuthorizationMode;
    webhook: { cacheAuthorizedTTLMs: number; cacheUnauthorizedTTLMs: number };
  };
}

export const SERVER_SETTINGS: ReadonlyArray<Setting<ServerSettings>> = [
  { flag: "address", field: "address", fieldType: STRING, valueHint: "ip", default: "127.0.0.1", show: (s) => s.address, doc: "HTTP API address" },
  {
    flag: "port",
    field: "port",
    fieldType: INT,
    valueHint: "int",
    default: "10250",
    show: (s) => s.port,
    doc: "HTTP API port (0: any free port, printed at start)",
  },
  {
    flag: "tls-cert-file",
    field: "tlsCertFile",
    fieldType: STRING,
    valueHint: "file",
    show: (s) => s.tls?.certFile,
    doc: "Serve HTTPS with this certificate chain (with --tls-private-key-file); default: a self-signed pair made once in <root-dir>/pki",
  },
  { flag: "tls-private-key-file", field: "tlsPrivateKeyFile", fieldType: STRING, valueHint: "file", show: (s) => s.tls?.keyFile, doc: "…and this key" },
  {
    flag: "insecure-http",
    kind: "boolean",
    default: "false",
    doc: "Serve plain HTTP instead of HTTPS: only with a loopback --address, for a standalone agent",
  },
  {
    flag: "push-token-file",
    valueHint: "file",
    doc: "File (mode 0600) holding a bearer token allowed every endpoint; without it pushing is off. The token is root on this host unless --push-policy restricted",
  },
  {
    flag: "anonymous-read-only",
    kind: "boolean",
    default: "false",
    doc: "Let callers without credentials read (GET) the view of the kubelet's read-only port, env values redacted",
  },
  {
    flag: "anonymous-auth",
    field: "authentication.anonymous.enabled",
    fieldType: BOOL,
    kind: "boolean",
    default: "false",
    show: (s) => s.authentication.anonymous,
    doc: "Requests without credentials are system:anonymous (group system:unauthenticated) and authorized as such, instead of 401",
  },
  {
    flag: "client-ca-file",
    field: "authentication.x509.clientCAFile",
    fieldType: STRING,
    valueHint: "file",
    show: (s) => s.authentication.clientCAFile,
    doc: "Authenticate client certificates signed by this CA bundle: user = CN, groups = O",
  },
  {
    flag: "authentication-token-webhook",
    field: "authentication.webhook.enabled",
    fieldType: BOOL,
    kind: "boolean",
    show: (s) => s.authentication.webhook.enabled,
    doc: "Authenticate bearer tokens with a TokenReview on the API server (default: on with --kubeconfig)",
  },
  {
    flag: "authentication-token-webhook-cache-ttl",
    field: "authentication.webhook.cacheTTL",
    fieldType: DURATION,
    valueHint: "duration",
    default: "2m",
    show: (s) => formatDuration(s.authentication.webhook.cacheTTLMs),
    doc: "How long a TokenReview's answer is kept",
  },
  {
    flag: "authorization-mode",
    field: "authorization.mode",
    fieldType: STRING,
    kind: "enum",
    options: ["Webhook", "AlwaysAllow"],
    show: (s) => s.authorization.mode,
    doc: "Webhook: a SubjectAccessReview per request (default with --kubeconfig); AlwaysAllow: every authenticated caller. Without either, only the push token is authorized",
  },
  {
    flag: "authorization-webhook-cache-authorized-ttl",
    field: "authorization.webhook.cacheAuthorizedTTL",
    fieldType: DURATION,
    valueHint: "duration",
    default: "5m",
    show: (s) => formatDuration(s.authorization.webhook.cacheAuthorizedTTLMs),
    doc: "How long an allowed SubjectAccessReview is kept",
  },
  {
    flag: "authorization-webhook-cache-unauthorized-ttl",
    field: "authorization.webhook.cacheUnauthorizedTTL",
    fieldType: DURATION,
    valueHint: "duration",
    default: "30s",
    show: (s) => formatDuration(s.authorization.webhook.cacheUnauthorizedTTLMs),
    doc: "How long a denied SubjectAccessReview is kept",
  },
];

/**
 * --push-token-file: the bearer token every endpoint but /healthz requires. The token is root on
 * this host: a file others can read (or that someone else owns) is refused, as ssh refuses such a key.
 */
export function resolvePushToken(s: SettingsReader): string | undefined {
  const pushTokenFile = s.string("push-token-file", mustExist);
  if (!pushTokenFile) return undefined;
  try {
    return readTokenFile(pushTokenFile);
  } catch (e) {
    s.fail(errorMessage(e));
    return undefined;
  }
}

/** --tls-cert-file and --tls-private-key-file: both or neither. */
export function resolveTls(s: SettingsReader): { certFile?: string; keyFile?: string } {
  const certFile = s.string("tls-cert-file", mustExist);
  const keyFile = s.string("tls-private-key-file", mustExist);
  if (!!certFile !== !!keyFile)
    s.fail("--tls-cert-file and --tls-private-key-file go together: give both, or neither for a self-signed certificate under --root-dir");
  return { certFile, keyFile };
}

/** The server's settings; `cluster`: --kubeconfig was given (there is an API server to ask). */
export function resolveServer(s: SettingsReader, tls: { certFile?: string; keyFile?: string }, cluster: boolean): ServerSettings {
  const insecureHttp = s.flags["insecure-http"] === true;
  return {
    address: s.string("address", ipAddress) ?? defaultOf(SERVER_SETTINGS, "address"),
    // Port 0 on the command line is "any free port"; in the file it is unset, as v1beta1 defaults it.
    port: s.get("port", (t) => wholeNumber(t, 0, 65535), fileInt(1, 65535)) ?? 0,
    ...(tls.certFile && tls.keyFile ? { tls: { certFile: tls.certFile, keyFile: tls.keyFile } } : {}),
    insecureHttp,
    anonymousReadOnly: s.flags["anonymous-read-only"] === true,
    ...resolveApiAuth(s, cluster, insecureHttp),
  };
}

/**
 * The API's authentication and authorization (the kubelet's BuildAuth): each setting from its flag,
 * else the file's `authentication`/`authorization` block, else the default. Without --kubeconfig
 * there is no API server to send TokenReviews and SubjectAccessReviews to: the kubelet refuses to
 * start ("no client provided, cannot use webhook authentication"), and so does the agent when the
 * webhook is asked for on the command line; a file's webhook settings (kubeadm writes them) are
 * ignored with a warning, so a kubeadm config works for a standalone agent.
 */
function resolveApiAuth(s: SettingsReader, cluster: boolean, insecureHttp: boolean): Pick<ServerSettings, "authentication" | "authorization"> {
  const bool = (flag: string, block: string, path: string[], dflt: boolean): boolean => {
    if (s.isGiven(flag)) return s.flags[flag] === true;
    const f = s.nested(block, path);
    if (!f) return dflt;
    if (typeof f.value !== "boolean") {
      s.fail(`${f.at}: expected true or false, got ${describe(f.value)}`);
      return dflt;
    }
    return f.value;
  };
  const duration = (flag: string, block: string, path: string[]): number => {
    // The file's value is checked even when the flag overrides it.
    const inFile = s.nested(block, path);
    if (inFile && s.isGiven(flag) && !isZeroValue(inFile.value)) {
      try {
        fileDuration(inFile.value);
      } catch (e) {
        s.fail(`${inFile.at}: ${errorMessage(e)}`);
      }
    }
    const f = s.isGiven(flag) ? undefined : inFile;
    try {
      if (f && !isZeroValue(f.value)) return fileDuration(f.value);
      return positiveDuration(s.text(flag)!);
    } catch (e) {
      s.fail(f ? `${f.at}: ${errorMessage(e)}` : `--${flag} ${JSON.stringify(s.text(flag))}: ${errorMessage(e)}`);
      return 0;
    }
  };
  let clientCAFile: string | undefined;
  const caFlag = s.isGiven("client-ca-file") ? s.text("client-ca-file") : undefined;
  const caInFile = s.nested("authentication", ["x509", "clientCAFile"]);
  // The file's value is checked even when the flag overrides it.
  if (caFlag !== undefined && caInFile && caInFile.value !== "" && !existsSync(String(caInFile.value))) s.fail(`${caInFile.at}: no such file or directory`);
  const caFile = caFlag === undefined ? caInFile : undefined;
  const ca = caFlag ?? (caFile ? String(caFile.value) : undefined);
  if (ca) {
    if (!existsSync(ca)) s.fail(`${caFile ? caFile.at : `--client-ca-file ${JSON.stringify(ca)}`}: no such file or directory`);
    else clientCAFile = ca;
    if (insecureHttp) s.fail("--client-ca-file needs TLS, and --insecure-http serves plain HTTP: drop one of them");
  }

  let webhook = bool("authentication-token-webhook", "authentication", ["webhook", "enabled"], cluster);
  if (webhook && !cluster) {
    if (s.isGiven("authentication-token-webhook")) s.fail("--authentication-token-webhook asks the API server (TokenReview): give --kubeconfig too");
    else s.warn(`${s.nested("authentication", ["webhook", "enabled"])!.at}: ignored without --kubeconfig (there is no API server to review tokens)`);
    webhook = false;
  }
  let mode: AuthorizationMode = cluster ? "Webhook" : "PushTokenOnly";
  const modeInFile = s.nested("authorization", ["mode"]);
  if (
    s.isGiven("authorization-mode") &&
    modeInFile &&
    modeInFile.value !== "" &&
    !(AUTHORIZATION_MODES as readonly string[]).includes(String(modeInFile.value))
  ) {
    s.fail(`${modeInFile.at}: use ${AUTHORIZATION_MODES.join(" or ")}`);
  }
  const modeFile = s.isGiven("authorization-mode") ? undefined : modeInFile;
  const modeText = s.isGiven("authorization-mode") ? s.text("authorization-mode") : modeFile ? String(modeFile.value) : undefined;
  if (modeText !== undefined) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(modeText)) {
      s.fail(`${modeFile ? modeFile.at : `--authorization-mode ${JSON.stringify(modeText)}`}: use ${AUTHORIZATION_MODES.join(" or ")}`);
    } else if (modeText === "Webhook" && !cluster) {
      if (modeFile) s.warn(`${modeFile.at}: Webhook ignored without --kubeconfig (there is no API server to ask); only the push token is authorized`);
      else s.fail("--authorization-mode Webhook asks the API server (SubjectAccessReview): give --kubeconfig too, or use AlwaysAllow");
    } else {
      mode = modeText as AuthorizationMode;
    }
  }
  return {
    authentication: {
      ...(clientCAFile ? { clientCAFile } : {}),
      anonymous: bool("anonymous-auth", "authentication", ["anonymous", "enabled"], false),
      webhook: { enabled: webhook, cacheTTLMs: duration("authentication-token-webhook-cache-ttl", "authentication", ["webhook", "cacheTTL"]) },
    },
    authorization: {
      mode,
      webhook: {
        cacheAuthorizedTTLMs: duration("authorization-webhook-cache-authorized-ttl", "authorization", ["webhook", "cacheAuthorizedTTL"]),
        cacheUnauthorizedTTLMs: duration("authorization-webhook-cache-unauthorized-ttl", "authorization", ["webhook", "cacheUnauthorizedTTL"]),
      },
    },
  };
}
