// A port-forward exchange over WebSocket (v4.channel.k8s.io) for the e2e tests: the first port's data
// channel is 0 and its error channel 1; each channel starts with the port it carries, two bytes
// little-endian, alone in a message or before the data. Sends `send`, answers the first line back.
import type { AgentClient } from "../../src/client/agent-client";

export function portForwardLine(client: AgentClient, path: string, port: number, send: string, timeoutMs = 20_000): Promise<string> {
  const { url, options } = client.websocket(path);
  const ws = new WebSocket(url, { protocols: ["v4.channel.k8s.io"], headers: options.headers, tls: options.tls } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  return new Promise<string>((resolve, reject) => {
    let data = "";
    let portSeen = false;
    const timer = setTimeout(() => {
      ws.close();
      reject(new Error(`no answer; got ${JSON.stringify(data)}`));
    }, timeoutMs);
    ws.onopen = () => ws.send(new Uint8Array([0, ...new TextEncoder().encode(send)]));
    ws.onmessage = (ev) => {
      const b = new Uint8Array(ev.data as ArrayBuffer);
      if (b[0] !== 0) return;
      let body = b.subarray(1);
      if (!portSeen && body.length >= 2) {
        portSeen = true;
        if ((body[0]! | (body[1]! << 8)) !== port) reject(new Error(`the data channel names port ${body[0]! | (body[1]! << 8)}, not ${port}`));
        body = body.subarray(2);
      }
      data += new TextDecoder().decode(body);
      if (data.includes("\n")) {
        clearTimeout(timer);
        ws.close();
        resolve(data);
      }
    };
    ws.onerror = () => {
      clearTimeout(timer);
      reject(new Error("websocket error"));
    };
  });
}
