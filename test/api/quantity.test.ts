import { describe, expect, test } from "bun:test";
import {
  compareQuantity,
  parseQuantity,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_NUMERIC_ERROR,
  QUANTITY_SUFFIX_ERROR,
  QuantityError,
  tryParseQuantity,
} from "../../src/api/quantity";

describe("parseQuantity", () => {
  test("100m: milli-units of CPU", () => {
    const q = parseQuantity("100m");
    expect(q.milli()).toBe(100);
    expect(q.value()).toBe(1); // Value rounds up
    expect(q.toString()).toBe("100m");
    expect(q.format).toBe("DecimalSI");
  });

  test("0.5 is printed as 500m, as the API server prints it", () => {
    const q = parseQuantity("0.5");
    expect(q.milli()).toBe(500);
    expect(q.toString()).toBe("500m");
  });

  test("1Gi is binary", () => {
    const q = parseQuantity("1Gi");
    expect(q.value()).toBe(1073741824);
    expect(q.format).toBe("BinarySI");
    expect(q.toString()).toBe("1Gi");
    expect(parseQuantity("1024Mi").toString()).toBe("1Gi");
  });

  test("1e3 is a decimal exponent", () => {
    const q = parseQuantity("1e3");
    expect(q.value()).toBe(1000);
    expect(q.format).toBe("DecimalExponent");
    expect(q.toString()).toBe("1e3");
    expect(parseQuantity("1.3E+6").value()).toBe(1300000);
    expect(parseQuantity("1E-3").milli()).toBe(1);
  });

  test("128974848 plain bytes", () => {
    const q = parseQuantity("128974848");
    expect(q.value()).toBe(128974848);
    expect(q.milli()).toBe(128974848000);
    expect(q.toString()).toBe("128974848");
  });

  test("1.5Gi is exact and prints in the largest whole binary unit", () => {
    const q = parseQuantity("1.5Gi");
    expect(q.value()).toBe(1610612736);
    expect(q.toString()).toBe("1536Mi");
  });

  test("numbers from YAML parse like the JSON number the kubelet sees", () => {
    expect(parseQuantity(0.5).toString()).toBe("500m");
    expect(parseQuantity(2).value()).toBe(2);
    expect(parseQuantity(128974848).toString()).toBe("128974848");
    expect(() => parseQuantity(Number.NaN)).toThrow(QUANTITY_FORMAT_ERROR);
  });

  test("signs", () => {
    expect(parseQuantity("-1").sign()).toBe(-1);
    expect(parseQuantity("+2k").value()).toBe(2000);
    expect(parseQuantity("-1.5Gi").toString()).toBe("-1536Mi");
  });

  test("values below a nano round up to a nano", () => {
    expect(parseQuantity("0.0000000001").toString()).toBe("1n");
    expect(parseQuantity("3.001n").toString()).toBe("4n");
    expect(parseQuantity("0.000000000001Ki").toString()).toBe("2n");
  });

  test("milli and value round up", () => {
    expect(parseQuantity("1.0001m").milli()).toBe(2);
    expect(parseQuantity("0.1m").milli()).toBe(1);
    expect(parseQuantity("1n").milli()).toBe(1);
    expect(parseQuantity("0").milli()).toBe(0);
  });

  test("binary values are capped at the int64 maximum", () => {
    expect(parseQuantity("9Ei").toString()).toBe("9223372036854775807");
  });

  test("1GB is not a quantity", () => {
    expect(() => parseQuantity("1GB")).toThrow(QuantityError);
    expect(() => parseQuantity("1GB")).toThrow(QUANTITY_FORMAT_ERROR);
    expect(QUANTITY_FORMAT_ERROR).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  });

  test("the empty string is not a quantity", () => {
    expect(() => parseQuantity("")).toThrow(QUANTITY_FORMAT_ERROR);
  });

  test('"m" parses as zero, as resource.ParseQuantity does (the numerator defaults to 0)', () => {
    const q = parseQuantity("m");
    expect(q.isZero()).toBe(true);
    expect(q.toString()).toBe("0");
  });

  test("unknown suffixes and bad exponents", () => {
    expect(() => parseQuantity("1Gk")).toThrow(QUANTITY_SUFFIX_ERROR);
    expect(() => parseQuantity("1i")).toThrow(QUANTITY_SUFFIX_ERROR);
    expect(() => parseQuantity("1e4294967297")).toThrow(QUANTITY_SUFFIX_ERROR);
    expect(() => parseQuantity("-3.01e-")).toThrow(QuantityError);
  });

  test("whitespace and stray characters are rejected", () => {
    for (const bad of [" 1", "1 ", "1.1.M", "1+1.0M", "aoeu", "100 m", "1,5"]) {
      expect(tryParseQuantity(bad)).toBeInstanceOf(QuantityError);
    }
  });

  test("a number that needs the slow path must have digits", () => {
    expect(() => parseQuantity("e-10")).toThrow(QUANTITY_NUMERIC_ERROR);
  });

  test("huge exponents do not hang", () => {
    const q = parseQuantity("1e2000000000");
    expect(q.value()).toBe(Infinity);
    expect(compareQuantity(q, "1E")).toBe(1);
  });
});

describe("compareQuantity", () => {
  test("orders mixed units exactly", () => {
    expect(compareQuantity("100m", "50m")).toBe(1);
    expect(compareQuantity("50m", "100m")).toBe(-1);
    expect(compareQuantity("1", "1000m")).toBe(0);
    expect(compareQuantity("10000T", "100Gi")).toBe(1);
    expect(compareQuantity("1Gi", "1G")).toBe(1);
    expect(compareQuantity("1e3", "1k")).toBe(0);
    expect(compareQuantity("-1", "0")).toBe(-1);
    expect(compareQuantity("-2", "-1")).toBe(-1);
    expect(compareQuantity("0.5", 0.5)).toBe(0);
  });

  test("roundUp to milli, as SetDefaults_ResourceList does", () => {
    expect(parseQuantity("1n").roundUp(-3).toString()).toBe("1m");
    expect(parseQuantity("1.5").roundUp(-3).toString()).toBe("1500m");
    expect(compareQuantity(parseQuantity("1.0001m").roundUp(-3), "2m")).toBe(0);
  });
});
