// Imported first by cmd/nodeagent.ts: help and errors piped to a file or a CI log carry no colour
// codes. It must run before citty loads, which reads the environment at import time.
if (!process.stdout.isTTY && process.env.FORCE_COLOR === undefined) process.env.NO_COLOR = "1";
export {};
