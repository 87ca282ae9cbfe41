// Options for @grpc/proto-loader, shared by the generator (scripts/gen-cri.ts) and the client so the
// generated types describe exactly the objects the client receives: camelCase fields, int64 as
// number (nanosecond timestamps keep ~256 ns precision, enough for ordering events), enums as names.
export const LOADER_OPTIONS = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
} as const;
