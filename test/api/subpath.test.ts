// A volumeMount's sub-path as the kubelet's makeMounts computes it: subPathExpr expanded from the
// container's environment, and the result checked to stay inside the volume.
import { describe, expect, test } from "bun:test";
import { mountSubPath, SubPathError } from "../../src/api/subpath";

const env = new Map([
  ["POD_NAME", "web-1"],
  ["NS", "shop"],
  ["UP", "../.."],
  ["ABS", "/etc"],
  ["EMPTY", ""],
]);

describe("mountSubPath", () => {
  test("no subPath and no subPathExpr: the whole volume", () => {
    expect(mountSubPath({}, env)).toBe("");
  });

  test("subPath is taken as written", () => {
    expect(mountSubPath({ subPath: "a/b" }, env)).toBe("a/b");
  });

  test("subPathExpr expands $(VAR) from the container's environment", () => {
    expect(mountSubPath({ subPathExpr: "$(POD_NAME)" }, env)).toBe("web-1");
    expect(mountSubPath({ subPathExpr: "logs/$(NS)/$(POD_NAME)" }, env)).toBe("logs/shop/web-1");
  });

  test("$$ escapes to a literal $, and a lone $ stays", () => {
    expect(mountSubPath({ subPathExpr: "$$(POD_NAME)" }, env)).toBe("$(POD_NAME)");
    expect(mountSubPath({ subPathExpr: "a$b" }, env)).toBe("a$b");
  });

  test("an unset or empty variable is an error naming every one (sorted), never an empty segment", () => {
    expect(() => mountSubPath({ subPathExpr: "$(NOPE)/$(EMPTY)/$(ALSO)" }, env)).toThrow(new SubPathError("missing value for ALSO, EMPTY, NOPE"));
  });

  test("an expansion with '..' is refused with the kubelet's message", () => {
    expect(() => mountSubPath({ subPathExpr: "$(UP)" }, env)).toThrow(new SubPathError("unable to provision SubPath `../..`: must not contain '..'"));
    expect(() => mountSubPath({ subPathExpr: "a/$(UP)/b" }, env)).toThrow(SubPathError);
  });

  test("an absolute expansion is refused with the kubelet's message", () => {
    expect(() => mountSubPath({ subPathExpr: "$(ABS)" }, env)).toThrow(new SubPathError("error SubPath `/etc` must not be an absolute path"));
  });

  test("'..' inside a name is not a segment", () => {
    expect(mountSubPath({ subPathExpr: "a..b/$(POD_NAME)" }, env)).toBe("a..b/web-1");
  });
});
