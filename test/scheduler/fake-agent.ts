// An agent's HTTP API as the scheduler sees it (GET /node, GET /pods, POST /pods with a bearer token,
// DELETE /pods/<ns>/<name>), on 127.0.0.1, holding pods in memory.
import type { Node, Pod } from "kubernetes-types/core/v1";
import type { Server } from "bun";

export class FakeAgent {
  readonly pods = new Map<string, Pod>();
  readonly pushes: Pod[] = [];
  private server!: Server<undefined>;
  url = "";

  constructor(
    public node: Node,
    private readonly token = "secret",
  ) {}

  start(): this {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => {
        const url = new URL(req.url);
        if (req.method === "GET" && url.pathname === "/node") return Response.json(this.node);
        if (req.method === "GET" && url.pathname === "/pods")
          return Response.json({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [...this.pods.values()] });
        if (req.headers.get("authorization") !== `Bearer ${this.token}`)
          return Response.json({ kind: "Status", message: "Forbidden: the bearer token is not valid for this agent" }, { status: 403 });
        if (req.method === "POST" && url.pathname === "/pods") {
          const pod = (await req.json()) as Pod;
          if (pod.spec?.nodeName !== this.node.metadata?.name)
            return Response.json({ kind: "Status", message: `bound to node "${pod.spec?.nodeName}"` }, { status: 403 });
          this.pushes.push(pod);
          this.pods.set(`${pod.metadata?.namespace}/${pod.metadata?.name}`, { ...pod, status: { phase: "Running" } });
          return Response.json(pod, { status: 201 });
        }
        const m = /^\/pods\/([^/]+)\/([^/]+)$/.exec(url.pathname);
        if (req.method === "DELETE" && m) {
          return this.pods.delete(`${m[1]}/${m[2]}`)
            ? Response.json({ kind: "Status", status: "Success" })
            : Response.json({ kind: "Status", message: "not found" }, { status: 404 });
        }
        return new Response("not found", { status: 404 });
      },
    });
    this.url = `http://127.0.0.1:${this.server.port}`;
    return this;
  }

  stop(): void {
    this.server.stop(true);
  }
}
