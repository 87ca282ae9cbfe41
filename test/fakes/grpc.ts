// Builds the CriError a real CRI call would throw for a gRPC status code.
import { toCriError, type CriError } from "../../src/cri/errors";

export function grpcStatusError(method: string, code: number, details: string): CriError {
  return toCriError(method, { code, details });
}
