import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TokenFileError, readTokenFile } from "../../src/server/token-file";

const dir = mkdtempSync(join(tmpdir(), "nodeagent-token-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function tokenFile(content: string, mode: number): string {
  const path = join(dir, `token-${++n}`);
  writeFileSync(path, content);
  chmodSync(path, mode);
  return path;
}

describe("readTokenFile", () => {
  test("a 0600 or 0400 file of the agent's user: the token, trimmed", () => {
    expect(readTokenFile(tokenFile("s3cret\n", 0o600))).toBe("s3cret");
    expect(readTokenFile(tokenFile("  s3cret  \n\n", 0o400))).toBe("s3cret");
  });

  test("any permission for group or others is refused, as ssh refuses an unprotected key", () => {
    for (const mode of [0o644, 0o604, 0o640, 0o660, 0o602, 0o620, 0o601, 0o610, 0o666]) {
      const path = tokenFile("s3cret\n", mode);
      let err: unknown;
      try {
        readTokenFile(path);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TokenFileError);
      expect((err as Error).message).toBe(
        `--push-token-file ${path}: permissions 0${mode.toString(8)} are too open: the push token is root on this host, so its file must be readable and writable by its owner only (chmod 600 ${path})`,
      );
    }
  });

  test("a file owned by neither root nor the agent's user is refused", () => {
    const path = tokenFile("s3cret\n", 0o600);
    const me = process.getuid!();
    if (me === 0) {
      chownSync(path, 65534, 65534);
      expect(() => readTokenFile(path, 0)).toThrow(`--push-token-file ${path}: owned by uid 65534; it must belong to root (chown root ${path})`);
    } else {
      // Not root here: the file is ours, so an agent running as another user must refuse it.
      expect(() => readTokenFile(path, me + 1)).toThrow(`owned by uid ${me}; it must belong to root or to the agent's user (uid ${me + 1})`);
    }
  });

  test("a file owned by the agent's own (non-root) user is accepted", () => {
    const path = tokenFile("s3cret\n", 0o600);
    const me = process.getuid!();
    if (me === 0) chownSync(path, 1234, 1234);
    expect(readTokenFile(path, me === 0 ? 1234 : me)).toBe("s3cret");
  });

  test("the mode checked is the target's, through a symlink (as a mounted Secret is)", () => {
    const open = tokenFile("s3cret\n", 0o644);
    const link = join(dir, `link-${++n}`);
    symlinkSync(open, link);
    expect(() => readTokenFile(link)).toThrow("permissions 0644 are too open");
    chmodSync(open, 0o600);
    expect(readTokenFile(link)).toBe("s3cret");
  });

  test("missing, a directory, empty, or with whitespace inside: clear errors", () => {
    expect(() => readTokenFile(join(dir, "nope"))).toThrow(`--push-token-file ${join(dir, "nope")}: ENOENT`);
    const sub = join(dir, `dir-${++n}`);
    mkdirSync(sub, { mode: 0o700 });
    expect(() => readTokenFile(sub)).toThrow("not a regular file");
    const empty = tokenFile(" \n", 0o600);
    expect(() => readTokenFile(empty)).toThrow(`--push-token-file ${empty} is empty`);
    expect(() => readTokenFile(tokenFile("two words\n", 0o600))).toThrow("the token contains whitespace");
  });
});
