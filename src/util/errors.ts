// The one error type for bad input that the user can fix: a flag value, a field of a configuration
// file, a path that must exist. It is raised before anything is started (no runtime, no port, no pod
// touched), and every command turns it into exit status 2 with the message alone, as a usage error.
// It lives here, not in cmd/, so that src/ can raise it without importing the command layer.

/** Bad input, reported as "error: <message>" with exit status 2. Nothing was started when it is thrown. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * The message of anything thrown: an Error's message, or the thrown value as a string (a library may
 * reject with a string or a plain object, which `(e as Error).message` would print as "undefined").
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The errno code of a failed system call (ENOENT, EACCES, …), if the error has one. */
export function errorCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err && typeof err.code === "string" ? err.code : undefined;
}
