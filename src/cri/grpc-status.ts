// The gRPC status codes (grpc/doc/statuscodes.md), by name and, reversed, by number: what a CRI call
// fails with, and what CriError (errors.ts) is told apart by.
export enum GrpcStatus {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

/** The name Go's codes.Code.String() gives a code ("Unknown", "NotFound", …): grpc-go's error text uses it. */
const GO_CODE_NAMES: Readonly<Record<GrpcStatus, string>> = {
  [GrpcStatus.OK]: "OK",
  [GrpcStatus.CANCELLED]: "Canceled",
  [GrpcStatus.UNKNOWN]: "Unknown",
  [GrpcStatus.INVALID_ARGUMENT]: "InvalidArgument",
  [GrpcStatus.DEADLINE_EXCEEDED]: "DeadlineExceeded",
  [GrpcStatus.NOT_FOUND]: "NotFound",
  [GrpcStatus.ALREADY_EXISTS]: "AlreadyExists",
  [GrpcStatus.PERMISSION_DENIED]: "PermissionDenied",
  [GrpcStatus.RESOURCE_EXHAUSTED]: "ResourceExhausted",
  [GrpcStatus.FAILED_PRECONDITION]: "FailedPrecondition",
  [GrpcStatus.ABORTED]: "Aborted",
  [GrpcStatus.OUT_OF_RANGE]: "OutOfRange",
  [GrpcStatus.UNIMPLEMENTED]: "Unimplemented",
  [GrpcStatus.INTERNAL]: "Internal",
  [GrpcStatus.UNAVAILABLE]: "Unavailable",
  [GrpcStatus.DATA_LOSS]: "DataLoss",
  [GrpcStatus.UNAUTHENTICATED]: "Unauthenticated",
};

export function goCodeName(code: number): string {
  return GO_CODE_NAMES[code as GrpcStatus] ?? `Code(${code})`;
}
