import { describe, expect, test } from "bun:test";
import { isQualifiedName, labelValueError, qualifiedNameError } from "../../src/api";

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

// The one qualified-name validator, with apimachinery's IsQualifiedName messages word for word.
describe("qualified names", () => {
  test("valid keys have no error", () => {
    for (const k of ["app", "example.com/app", "node.kubernetes.io/role", "a_b.c-d"]) expect(qualifiedNameError(k)).toBeUndefined();
  });

  test("each way to be invalid, in upstream's words", () => {
    expect(qualifiedNameError("")).toBe(`name part must be non-empty; name part ${NAME_RULE}`);
    expect(qualifiedNameError("/k")).toBe("prefix part must be non-empty");
    expect(qualifiedNameError("k".repeat(64))).toBe("name part must be no more than 63 characters");
    expect(qualifiedNameError("bad key")).toBe(`name part ${NAME_RULE}`);
    expect(qualifiedNameError("Bad.Prefix/k")).toStartWith("prefix part a lowercase RFC 1123 subdomain must consist of");
    expect(qualifiedNameError("a/b/c")).toBe(`a qualified name ${NAME_RULE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`);
  });

  test("qualifiedNameError joins isQualifiedName's list", () => {
    expect(qualifiedNameError("/")).toBe(isQualifiedName("/").join("; "));
  });

  test("label values", () => {
    expect(labelValueError("")).toBeUndefined();
    expect(labelValueError("v1.2_x")).toBeUndefined();
    expect(labelValueError("v".repeat(64))).toBe("must be no more than 63 characters");
    expect(labelValueError("b c")).toStartWith("a valid label must be an empty string or consist of alphanumeric characters");
  });
});
