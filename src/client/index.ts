// src/client owns the agent API's clients for the thin commands (`nodeagent exec`, `logs`, `pleg watch
// --agent`): how they reach the agent, and the remote command protocol behind /exec and /attach.
export type * from "./remote-command";
export { AgentClient, AgentClientError, readPemFlag } from "./agent-client";
export { loadRemoteCommand } from "./lazy";
