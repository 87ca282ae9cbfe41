// Loads the CRI service definitions from the descriptor generated out of proto/api.proto and
// embedded in the binary (scripts/gen-cri.ts), so that no .proto file is read at run time.
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import type { INamespace } from "protobufjs";
import descriptor from "./generated/descriptor.json" with { type: "json" };
import type { ProtoGrpcType } from "./generated/api";
import { LOADER_OPTIONS } from "./proto-options";

let loaded: ProtoGrpcType | undefined;

/** The runtime.v1 package: RuntimeService and ImageService client constructors. */
export function criProto(): ProtoGrpcType {
  loaded ??= grpc.loadPackageDefinition(
    protoLoader.fromJSON(descriptor as INamespace, LOADER_OPTIONS),
  ) as unknown as ProtoGrpcType;
  return loaded;
}
