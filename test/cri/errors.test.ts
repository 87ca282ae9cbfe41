import { describe, expect, test } from "bun:test";
import { CriError, GrpcStatus, runtimeErrorMessage, runtimeErrorText, toCriError } from "../../src/cri/errors";
import { goCodeName } from "../../src/cri/grpc-status";

describe("CRI errors as the kubelet prints them", () => {
  test("goText is grpc-go's status error text, with Go's code names", () => {
    const e = toCriError("PullImage", { code: GrpcStatus.UNKNOWN, details: 'failed to pull and unpack image "x": 401 Unauthorized' });
    expect(e.goText).toBe('rpc error: code = Unknown desc = failed to pull and unpack image "x": 401 Unauthorized');
    expect(toCriError("ImageStatus", { code: GrpcStatus.NOT_FOUND, details: "gone" }).goText).toBe("rpc error: code = NotFound desc = gone");
    expect(goCodeName(GrpcStatus.CANCELLED)).toBe("Canceled");
    expect(goCodeName(GrpcStatus.DEADLINE_EXCEEDED)).toBe("DeadlineExceeded");
    expect(goCodeName(99)).toBe("Code(99)");
  });

  test("runtimeErrorText: a CRI error's Go text, any other error's message", () => {
    expect(runtimeErrorText(new CriError("PullImage", GrpcStatus.UNAVAILABLE, "connection refused"))).toBe(
      "rpc error: code = Unavailable desc = connection refused",
    );
    expect(runtimeErrorText(new Error('secret "s" does not parse'))).toBe('secret "s" does not parse');
  });

  test("runtimeErrorMessage: only the runtime's message (CreateContainerError, RunContainerError)", () => {
    expect(runtimeErrorMessage(new CriError("StartContainer", GrpcStatus.UNKNOWN, 'failed to create containerd task: exec: "nope": not found'))).toBe(
      'failed to create containerd task: exec: "nope": not found',
    );
    expect(runtimeErrorMessage(new Error("plain"))).toBe("plain");
  });
});
