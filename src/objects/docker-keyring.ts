// The kubelet's BasicDockerKeyring (k/k@1.24.1 pkg/credentialprovider/{keyring.go,config.go}): registry
// credentials from docker config files, indexed by registry location, looked up by image repository.
//
// - Add: each entry's location is normalised as the docker client does — `https://` added when there
//   is no scheme, a leading `/v1/` or `/v2/` path dropped — to the key host[+path]; the index is kept
//   sorted in reverse order so that longer (more specific) paths come before their prefixes.
// - An entry's `auth` (base64 "user:pass", padded or not) overrides its username and password; an
//   `auth` that does not decode to "user:pass" makes the whole config invalid (config.go UnmarshalJSON).
// - Lookup(repository) returns the credentials of EVERY key that matches, most specific first: same
//   port, same number of host labels, each label a glob (filepath.Match, so `*.example.com`), and the
//   key's path a string prefix of the image's path. When nothing matches and the image pulls from
//   Docker Hub (no registry host in its name, or docker.io / index.docker.io), the credentials of
//   `index.docker.io` are used.
// The node's own docker config and the kubelet's credential provider plugins are not read (out of scope).

/** One registry's credentials as the CRI's AuthConfig carries them (keyring.go AuthConfig). */
export interface RegistryCredentials {
  username: string;
  password: string;
}

/** A docker config: registry location → credentials (the bare `.dockercfg` map, or `.dockerconfigjson`'s `auths`). */
export type DockerConfig = Map<string, RegistryCredentials>;

/** The config is not a docker config (invalid JSON, a bad `auth` field): the image pull fails with it. */
export class DockerConfigError extends Error {
  override name = "DockerConfigError";
}

const DEFAULT_REGISTRY_HOST = "index.docker.io";

export class DockerKeyring {
  private readonly creds = new Map<string, RegistryCredentials[]>();
  private index: string[] = [];

  add(config: DockerConfig): void {
    for (const [location, ident] of config) {
      // The kubelet adds "https://" when there is no scheme and parses a URL: the scheme goes either way.
      const parsed = parseURL(location.replace(/^https?:\/\//, ""));
      let path = parsed.path;
      if (path.startsWith("/v2/") || path.startsWith("/v1/")) path = path.slice(3);
      const key = path.length > 0 && path !== "/" ? parsed.host + path : parsed.host;
      this.creds.set(key, [...(this.creds.get(key) ?? []), { username: ident.username, password: ident.password }]);
      this.index.push(key);
    }
    // sets.NewString(...).List() sorts; then sort.Reverse: byte order, descending.
    this.index = [...new Set(this.index)].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  }

  /** Every matching credential, most specific key first; empty when the image needs none from here. */
  lookup(repository: string): RegistryCredentials[] {
    const out: RegistryCredentials[] = [];
    for (const key of this.index) {
      if (urlsMatch(parseURL(key), parseURL(repository))) out.push(...this.creds.get(key)!);
    }
    if (out.length > 0) return out;
    if (isDefaultRegistryMatch(repository)) return [...(this.creds.get(DEFAULT_REGISTRY_HOST) ?? [])];
    return [];
  }
}

/**
 * A docker config from JSON: `{"auths": {...}}` when `nested` (.dockerconfigjson), else the bare map
 * (.dockercfg). Entry fields: username, password, email (unused by the CRI), auth.
 * @throws DockerConfigError
 */
export function parseDockerConfig(json: string, nested: boolean): DockerConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new DockerConfigError(`invalid docker config JSON: ${(err as Error).message}`);
  }
  const entries = nested ? (isObject(doc) ? doc["auths"] : undefined) : doc;
  const out: DockerConfig = new Map();
  if (entries === undefined || entries === null) return out;
  if (!isObject(entries)) throw new DockerConfigError(`invalid docker config JSON: ${nested ? '"auths" is' : "it is"} not an object`);
  for (const [location, e] of Object.entries(entries)) {
    if (!isObject(e)) throw new DockerConfigError(`invalid docker config JSON: entry ${JSON.stringify(location)} is not an object`);
    let username = typeof e["username"] === "string" ? e["username"] : "";
    let password = typeof e["password"] === "string" ? e["password"] : "";
    const auth = typeof e["auth"] === "string" ? e["auth"] : "";
    if (auth.length > 0) [username, password] = decodeAuthField(auth);
    out.set(location, { username, password });
  }
  return out;
}

/** config.go decodeDockerConfigFieldAuth: base64 (padded or not) of "username:password". */
function decodeAuthField(field: string): [string, string] {
  const trimmed = field.trim();
  const padded = trimmed.endsWith("=");
  // Go's StdEncoding takes padded input only, RawStdEncoding unpadded only; both reject other bytes.
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(field) || (padded ? field.length % 4 !== 0 : field.length % 4 === 1)) {
    throw new DockerConfigError("illegal base64 data in the auth field of a docker config");
  }
  const decoded = Buffer.from(field, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new DockerConfigError("unable to parse auth field, must be formatted as base64(username:password)");
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/**
 * The repository an image pulls from, as the kubelet looks credentials up (parsers.ParseImageName →
 * reference.ParseNormalizedNamed(...).Name()): tag and digest dropped, Docker Hub names completed to
 * `docker.io/library/x` / `docker.io/user/x`.
 */
export function imageRepository(image: string): string {
  let name = image;
  const at = name.indexOf("@");
  if (at >= 0) name = name.slice(0, at);
  const slash = name.lastIndexOf("/");
  const colon = name.lastIndexOf(":");
  if (colon > slash) name = name.slice(0, colon);
  const first = name.indexOf("/");
  const domain = first < 0 ? "" : name.slice(0, first);
  const hasDomain = domain !== "" && (domain.includes(".") || domain.includes(":") || domain === "localhost" || domain !== domain.toLowerCase());
  if (!hasDomain) return first < 0 ? `docker.io/library/${name}` : `docker.io/${name}`;
  // splitDockerDomain: index.docker.io is docker.io, and an official image there is library/<name>.
  const remainder = name.slice(first + 1);
  if (domain === "index.docker.io" || domain === "docker.io") return `docker.io/${remainder.includes("/") ? remainder : `library/${remainder}`}`;
  return name;
}

/** keyring.go isDefaultRegistryMatch: whether the image pulls from Docker Hub. */
function isDefaultRegistryMatch(image: string): boolean {
  const slash = image.indexOf("/");
  const first = slash < 0 ? image : image.slice(0, slash);
  if (first.length === 0) return false;
  if (slash < 0) return true;
  if (first === "docker.io" || first === "index.docker.io") return true;
  // Docker takes a first component with "." or ":" as a registry host.
  return !/[.:]/.test(first);
}

interface SchemelessURL {
  host: string;
  path: string;
}

/** keyring.go ParseSchemelessURL: host (with port) and path of "host[:port][/path]". */
function parseURL(s: string): SchemelessURL {
  const cut = s.search(/[/?#]/);
  const host = cut < 0 ? s : s.slice(0, cut);
  const rest = cut < 0 ? "" : s.slice(cut);
  const path = rest.startsWith("/") ? rest.replace(/[?#].*$/, "") : "";
  return { host, path };
}

/** keyring.go SplitURL: the host's labels and its port ("" when none). */
function splitHost(host: string): [string[], string] {
  const m = /^\[([^\]]*)\]:(\d*)$/.exec(host) ?? /^([^:]*):(\d*)$/.exec(host);
  const [name, port] = m ? [m[1]!, m[2]!] : [host, ""];
  return [name.split("."), port];
}

/** keyring.go URLsMatch: does the target match the (glob) key? */
function urlsMatch(glob: SchemelessURL, target: SchemelessURL): boolean {
  const [globParts, globPort] = splitHost(glob.host);
  const [targetParts, targetPort] = splitHost(target.host);
  if (globPort !== targetPort) return false;
  if (globParts.length !== targetParts.length) return false;
  if (!target.path.startsWith(glob.path)) return false;
  return globParts.every((g, i) => globMatch(g, targetParts[i]!));
}

/**
 * Go's filepath.Match for one host label: `*` any run of characters, `?` one character, `[...]` a
 * class (`^` negates, `a-z` ranges), `\` escapes. A malformed pattern matches nothing (the kubelet
 * ignores the error and treats it as no match).
 */
export function globMatch(pattern: string, name: string): boolean {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else if (ch === "\\") {
      if (i + 1 >= pattern.length) return false;
      re += escapeRe(pattern[++i]!);
    } else if (ch === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) return false;
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith("^");
      if (negate) body = body.slice(1);
      if (body.length === 0) return false;
      re += `[${negate ? "^" : ""}${body.replace(/[\]\\^]/g, (c) => `\\${c}`)}]`;
      i = end;
    } else re += escapeRe(ch);
  }
  try {
    return new RegExp(`^${re}$`, "s").test(name);
  } catch {
    return false;
  }
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
