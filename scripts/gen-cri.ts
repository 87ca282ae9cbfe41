// Generates what the CRI client needs from proto/api.proto (unmodified, from Debian):
//  - src/cri/generated/: TypeScript types made by proto-loader-gen-types (never written by hand);
//  - src/cri/generated/descriptor.json: the resolved protobuf descriptor, embedded into the
//    compiled binary so that dist/nodeagent needs no proto/ folder beside it at run time.
// The loader options here and in src/cri/proto.ts must agree, or the types would lie.
import { $ } from "bun";
import * as protobuf from "protobufjs";
import { join } from "node:path";
import { LOADER_OPTIONS } from "../src/cri/proto-options";

const repo = join(import.meta.dir, "..");
const protoDir = join(repo, "proto");
const outDir = join(repo, "src/cri/generated");

await $`rm -rf ${outDir}`;
await $`${join(repo, "node_modules/.bin/proto-loader-gen-types")} --grpcLib=@grpc/grpc-js --longs=Number --enums=String --defaults --oneofs --includeComments -I ${protoDir} -O ${outDir} api.proto`.quiet();

// gogo.proto imports descriptor.proto; register protobufjs's bundled copy, as proto-loader does.
import descriptorJson from "protobufjs/google/protobuf/descriptor.json";
protobuf.common("descriptor", (descriptorJson as { nested: { google: { nested: { protobuf: { nested: protobuf.INamespace["nested"] } } } } }).nested.google.nested.protobuf.nested!);
const root = new protobuf.Root();
// google/protobuf/* are bundled with protobufjs and resolve under their own names.
root.resolvePath = (_origin, target) =>
  target.startsWith("/") || target.startsWith("google/protobuf/") ? target : join(protoDir, target);
root.loadSync("api.proto", { keepCase: LOADER_OPTIONS.keepCase });
await Bun.write(join(outDir, "descriptor.json"), JSON.stringify(root.toJSON()));
console.log(`wrote ${outDir}`);
