// CRI errors as types the rest of the code can test with `instanceof`, mapped from gRPC status codes.
import { errorMessage } from "../util";
import { goCodeName, GrpcStatus } from "./grpc-status";

export { GrpcStatus };

/** A failed CRI call: which method, the gRPC code, and the runtime's own message. */
export class CriError extends Error {
  constructor(
    readonly method: string,
    readonly code: GrpcStatus,
    readonly details: string,
  ) {
    super(`CRI ${method}: ${GrpcStatus[code] ?? code}: ${details}`);
    this.name = new.target.name;
  }

  /**
   * The error as the kubelet's Go gRPC client prints it ("rpc error: code = Unknown desc = …"): the
   * text the kubelet puts in a status message it takes from a runtime error, such as ErrImagePull's.
   */
  get goText(): string {
    return `rpc error: code = ${goCodeName(this.code)} desc = ${this.details}`;
  }
}

/**
 * A failed CreateContainer or StartContainer as the kubelet's status message has it: only the
 * runtime's own message (grpcstatus.FromError(err).Message()), for any other error its text.
 */
export function runtimeErrorMessage(err: unknown): string {
  return err instanceof CriError ? err.details : errorMessage(err);
}

/** A runtime error's text as the kubelet shows it in a pod's status (goText for a CRI error). */
export function runtimeErrorText(err: unknown): string {
  return err instanceof CriError ? err.goText : errorMessage(err);
}
/** The object (sandbox, container, image) does not exist. */
export class NotFoundError extends CriError {}
/** The runtime does not implement the method (containerd 1.6 and GetContainerEvents). */
export class UnimplementedError extends CriError {}
/** The runtime cannot be reached: socket missing, runtime restarting. Retry later. */
export class UnavailableError extends CriError {}
/** The call's deadline passed before the runtime answered. */
export class DeadlineExceededError extends CriError {}
/** The runtime rejected the request as malformed. */
export class InvalidArgumentError extends CriError {}
/** The caller cancelled the call (for example, a stream it closed). */
export class CancelledError extends CriError {}

/** Maps a gRPC error (anything with a numeric `code` and a `details` text) to the matching CriError subclass. */
export function toCriError(method: string, err: unknown): CriError {
  if (err instanceof CriError) return err;
  const e = err as { code?: unknown; details?: string };
  const code = typeof e.code === "number" ? e.code : GrpcStatus.UNKNOWN;
  const details = e.details ?? errorMessage(err);
  switch (code) {
    case GrpcStatus.NOT_FOUND:
      return new NotFoundError(method, code, details);
    case GrpcStatus.UNIMPLEMENTED:
      return new UnimplementedError(method, code, details);
    case GrpcStatus.UNAVAILABLE:
      return new UnavailableError(method, code, details);
    case GrpcStatus.DEADLINE_EXCEEDED:
      return new DeadlineExceededError(method, code, details);
    case GrpcStatus.INVALID_ARGUMENT:
      return new InvalidArgumentError(method, code, details);
    case GrpcStatus.CANCELLED:
      return new CancelledError(method, code, details);
    default:
      return new CriError(method, code, details);
  }
}
