// Debian's docker-registry on 127.0.0.1 (a free port, storage in a temp folder), with images pushed by
// skopeo, for tests of pulls through CRI PullImage. containerd talks plain HTTP to loopback registries.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { eventually } from "./proc";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export class TestRegistry {
  proc!: Subprocess;
  port = 0;
  /** `auth`: basic authentication with this one user (an htpasswd file, bcrypt), as a private registry. */
  constructor(
    readonly dir: string,
    readonly auth?: { user: string; password: string },
  ) {}

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port = await freePort();
    mkdirSync(join(this.dir, "storage"), { recursive: true });
    const config = join(this.dir, "config.yml");
    let auth = "";
    if (this.auth) {
      const htpasswd = join(this.dir, "htpasswd");
      writeFileSync(htpasswd, `${this.auth.user}:${Bun.password.hashSync(this.auth.password, { algorithm: "bcrypt", cost: 5 })}\n`);
      auth = `auth:\n  htpasswd:\n    realm: nodeagent-e2e\n    path: ${htpasswd}\n`;
    }
    writeFileSync(
      config,
      `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${join(this.dir, "storage")}\nhttp:\n  addr: 127.0.0.1:${this.port}\n${auth}`,
    );
    this.proc = Bun.spawn(["/usr/bin/docker-registry", "serve", config], { stdout: "ignore", stderr: "ignore" });
    // With auth, an answer at all (401 without credentials) says it is up.
    await eventually("the registry to answer", async () => [200, 401].includes((await fetch(`http://${this.host}/v2/`)).status), 15_000);
  }

  /** Pushes a docker archive (from make images) as host/name:tag. */
  push(archive: string, name: string): void {
    const creds = this.auth ? ["--dest-creds", `${this.auth.user}:${this.auth.password}`] : [];
    const r = Bun.spawnSync(["skopeo", "copy", "--quiet", "--dest-tls-verify=false", ...creds, `docker-archive:${archive}`, `docker://${this.host}/${name}`]);
    if (r.exitCode !== 0) throw new Error(`skopeo push of ${name} failed: ${r.stderr.toString()}`);
  }

  async stop(): Promise<void> {
    this.proc?.kill();
    await this.proc?.exited;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
