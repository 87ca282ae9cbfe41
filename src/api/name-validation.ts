// apimachinery pkg/util/validation in TypeScript: the name rules (DNS labels and subdomains, qualified
// names, label values, port names and numbers, environment variable names, config keys) and their
// messages word for word; each returns the list of messages, empty when the value is valid.
export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}

/** RegexError: msg + " (e.g. 'a',  or 'b', regex used for validation is 'fmt')" (sic, two spaces). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += " or ";
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errs;
}

/** The longest pod UID accepted: a Kubernetes UUID has 36 characters, the static pod hash 32. */
export const MAX_POD_UID_LENGTH = 128;
const POD_UID_PATTERN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Why `uid` cannot identify a pod on this node, or undefined when it can. The agent writes UIDs into
 * paths (<root-dir>/pods/<uid>, the pod's log folder, its cgroup), so one is accepted only as a plain
 * name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 128
 * characters. API server UUIDs (RFC 4122, lowercase) and the 32 hex digits of staticPodUID pass.
 * The kubelet trusts the API server's UUIDs and takes a file's uid as written; nodeagent also has
 * sources anyone with a token or a URL can feed, hence the check (issue 12).
 */
export function podUIDProblem(uid: string): string | undefined {
  if (uid.length === 0) return "must not be empty";
  if (uid.length > MAX_POD_UID_LENGTH) return `must have at most ${MAX_POD_UID_LENGTH} characters`;
  if (!POD_UID_PATTERN.test(uid)) {
    return "must consist of lowercase letters, digits and '-', and start and end with a letter or digit (a UUID such as 8f2d7c4e-1b3a-4c5d-9e6f-0a1b2c3d4e5f)";
  }
  return undefined;
}

const QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);

export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/**
 * Why `key` is not a qualified name, as one line (IsQualifiedName's messages joined by "; ", as
 * pkg/util/taints prints them), or undefined when it is one. For callers that report a single
 * problem, such as the --node-labels and --register-with-taints parsers.
 */
export function qualifiedNameError(key: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length > 0 ? errs.join("; ") : undefined;
}

/** Why `value` is not a label value, as one line (IsValidLabelValue's messages), or undefined. */
export function labelValueError(value: string): string | undefined {
  const errs = isValidLabelValue(value);
  return errs.length > 0 ? errs.join("; ") : undefined;
}

/** IsValidPortName: an IANA_SVC_NAME. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(port)) errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) errs.push("must not begin or end with a hyphen");
  return errs;
}

export const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

const ENV_VAR_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const ENV_VAR_NAME_RE = new RegExp(`^${ENV_VAR_NAME_FMT}$`);

/**
 * IsEnvVarName, the rule before RelaxedEnvironmentVariableValidation; also the kubelet's check of
 * envFrom keys (k/k@1.24.1 makeEnvironmentVariables). Empty when valid, else the messages.
 */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_NAME_RE.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_NAME_FMT,
        "my.env-name",
        "MY_ENV.NAME",
        "MyEnvName1",
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  if (value.startsWith("..")) return ["must not start with '..'"];
  return [];
}

/** IsRelaxedEnvVarName: printable ASCII other than '='. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (value.length === 0) errs.push("environment variable name must be non-empty");
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp > 0x7f || cp < 0x20 || cp === 0x7f || ch === "=") {
      errs.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
      break;
    }
  }
  return errs;
}

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";

export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push(maxLenError(253));
  if (!new RegExp(`^${CONFIG_MAP_KEY_FMT}$`).test(value)) {
    errs.push(
      regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}
