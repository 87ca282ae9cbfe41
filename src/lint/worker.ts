// The entry point of a lint worker thread (`nodeagent staticpod lint --jobs N`, src/lint/jobs.ts): it
// is sent one JobsRequest, lints the batches it claims, answers with its reports (handing back the
// files its smaller stack may have failed on) and is terminated.
// `make build` embeds it as the binary's second entry point.
import { useNormalJitPolicy } from "../util";
import { lintClaimed, type JobsRequest, type JobsResponse } from "./jobs";

// The binary starts with the agent's JIT policy; linting wants JavaScriptCore's normal one.
useNormalJitPolicy();

declare const self: Worker;

self.addEventListener("message", (e: MessageEvent<JobsRequest>) => {
  const response: JobsResponse = lintClaimed(e.data, { worker: true });
  self.postMessage(response);
});
