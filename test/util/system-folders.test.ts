// The folders the agent may own and delete in (--root-dir, --pod-logs-dir, --cert-dir): absolute,
// not empty, and neither / nor a system folder of the host, however the path is spelled or linked.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeAbsolute, ownedFolderProblem, SYSTEM_FOLDERS, systemFolderOf } from "../../src/util/system-folders";

const base = mkdtempSync(join(tmpdir(), "system-folders-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const problem = (p: string) => ownedFolderProblem(p, "/var/log/pods");

describe("the system folders", () => {
  test("the list: / and the host's system folders, /lib* included", () => {
    for (const f of [
      "/",
      "/etc",
      "/usr",
      "/bin",
      "/sbin",
      "/lib",
      "/lib32",
      "/lib64",
      "/libx32",
      "/boot",
      "/root",
      "/home",
      "/var",
      "/var/lib",
      "/var/log",
      "/proc",
      "/sys",
      "/dev",
      "/run",
    ]) {
      expect(SYSTEM_FOLDERS).toContain(f);
    }
  });

  test("compared once normalised: trailing /, //, . and .. segments", () => {
    expect(normalizeAbsolute("/var/log/pods/..")).toBe("/var/log");
    expect(normalizeAbsolute("//etc/")).toBe("/etc");
    expect(normalizeAbsolute("/usr/./")).toBe("/usr");
    expect(normalizeAbsolute("/")).toBe("/");
    for (const [spelled, folder] of [
      ["/etc/", "/etc"],
      ["//etc", "/etc"],
      ["/var/log/pods/..", "/var/log"],
      ["/var/./lib", "/var/lib"],
      ["/tmp/..", "/"],
      ["/../../etc", "/etc"],
      ["/lib64/", "/lib64"],
      ["///", "/"],
    ]) {
      expect(systemFolderOf(spelled!)).toBe(folder);
      expect(problem(spelled!)).toContain(folder === "/" ? "/, the root of the host" : `${folder}, a system folder of the host`);
    }
    expect(problem("/var/log/pods/..")).toStartWith("is (once normalised) /var/log, a system folder of the host: the agent removes what it does not recognise");
    expect(problem("/etc")).toBe(
      "is /etc, a system folder of the host: the agent removes what it does not recognise in its folders; use a folder of its own such as /var/log/pods",
    );
  });

  test("sub-folders of system folders are fine: the agent owns what it makes there", () => {
    for (const ok of ["/var/log/pods", "/var/lib/nodeagent", "/var/lib/nodeagent/pki", "/etc/nodeagent/pki", "/tmp/na", "/srv/logs/", "/var/log/pods/../pods2"])
      expect(problem(ok)).toBeUndefined();
  });

  test("empty, relative, NUL or newline: refused with what to give", () => {
    expect(problem("")).toBe("must not be empty: give an absolute path such as /var/log/pods");
    expect(problem("logs")).toBe("must be an absolute path such as /var/log/pods (not relative to the working directory)");
    expect(problem("./var/log/pods")).toContain("must be an absolute path");
    expect(problem("/var/log/pods\0")).toContain("NUL");
    expect(problem("/var/log/pods\nx")).toContain("newline");
  });

  test("a symbolic link to a system folder is that folder; a link elsewhere is fine", () => {
    symlinkSync("/etc", join(base, "etc-link"));
    expect(problem(join(base, "etc-link"))).toBe(
      "resolves through a symbolic link to /etc, a system folder of the host: the agent removes what it does not recognise in its folders; use a folder of its own such as /var/log/pods",
    );
    expect(problem(join(base, "etc-link", "."))).toContain("to /etc,");
    mkdirSync(join(base, "real"));
    symlinkSync(join(base, "real"), join(base, "ok-link"));
    expect(problem(join(base, "ok-link"))).toBeUndefined();
    // A path that does not exist yet is judged by its existing part.
    expect(problem(join(base, "etc-link", "..", "etc-link", "pods", "new"))).toBeUndefined();
    symlinkSync("/", join(base, "root-link"));
    expect(problem(join(base, "root-link"))).toContain("to /, the root of the host");
  });
});
