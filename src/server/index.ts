// src/server owns the agent's HTTP API: health, pods, node, metrics, stats, container logs, the streaming
// and push endpoints, as one route table that the authentication and authorization gate shares; it
// sees the agent only through AgentView.
export type { AgentView, ContainerLogInfo, HealthCheck } from "./types";
export { serveContainerLogs, type ContainerLogsContext } from "./container-logs";
export { checkRequest, isLoopbackAddress, servingExposureError, UNAUTHORIZED_BODY, type Caller, type AuthRefusal } from "./auth";
export { Authenticator, AuthenticationError, ANONYMOUS_USER, PUSH_TOKEN_USER, type TokenReviewer, type PeerCertificate } from "./authn";
export { Authorizer, AUTHORIZATION_MODES, subjectAccessReview, type AccessReviewer, type AuthorizationMode } from "./authz";
export { requestAttributes, type RequestAttributes, type Subresource, type UserInfo } from "./request-attributes";
export { ROUTES, findRoute, routeSubresource, type Route, type RouteName } from "./route-table";
export { servingCertificate, readClientCA, isSpecificIP, type ServingCertificate } from "./tls";
export { NodeCache, NODE_DEADLINE_MS, type NodeAnswer } from "./node-cache";
export { redactPod, REDACTED, LAST_APPLIED_ANNOTATION } from "./redact";
export { readTokenFile, TokenFileError } from "./token-file";
export {
  startAgentServer,
  createHandler,
  decodeManifest,
  statusObject,
  MAX_BODY_BYTES,
  type AgentServer,
  type AgentServerOptions,
  type ServerLog,
} from "./server";
export {
  AgentMetrics,
  runtimeCounts,
  type ApiRequestSource,
  CONTAINER_STATES,
  DEFAULT_BUCKETS,
  POD_STARTUP_BUCKETS,
  type ContainerStateLabel,
} from "./metrics";
export { resolvePushToken, resolveServer, resolveTls, SERVER_SETTINGS, type ServerSettings } from "./settings";
