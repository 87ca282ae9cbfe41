// Kubernetes resource quantities ("100m", "1Gi", "1e3"), parsed and compared the way
// apimachinery's resource.ParseQuantity does (k8s.io/apimachinery/pkg/api/resource/quantity.go):
// the same scanner, the same three error messages, the same rounding to nano units, and the same
// canonical String() form, which the API server's validation messages print. Values are exact
// (bigint mantissa and a power-of-ten exponent), so no float ever rounds a request past a limit.

export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** The regular expression Kubernetes quotes in its parse error (it is only used for the message). */
const SPLIT_RE = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
export const QUANTITY_FORMAT_ERROR = `quantities must match the regular expression '${SPLIT_RE}'`;
export const QUANTITY_NUMERIC_ERROR = "unable to parse numeric part of quantity";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityError extends Error {
  override name = "QuantityError";
}

const MAX_INT32 = 2147483647;
const MAX_INT64 = (1n << 63n) - 1n;
/** Parsed values are rounded up to this power of ten (resource.Nano). */
const NANO = -9;

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_SUFFIX_BY_EXPONENT = new Map(Object.entries(BINARY_SUFFIXES).map(([s, e]) => [e, s]));

function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

/** Number of decimal digits of |n| (1 for zero). */
function digitCount(n: bigint): number {
  return abs(n).toString().length;
}

/**
 * An exact quantity: unscaled × 10^scale. `format` is how Kubernetes would print it; `cached` is
 * the input string when ParseQuantity would have kept it as the String() form.
 */
export class Quantity {
  readonly unscaled: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  private readonly cached: string | undefined;

  constructor(unscaled: bigint, scale: number, format: QuantityFormat, cached?: string) {
    // Normalise trailing zeros into the exponent so that equal values have equal representations.
    let u = unscaled;
    let s = scale;
    if (u === 0n) s = 0;
    while (u !== 0n && u % 10n === 0n) {
      u /= 10n;
      s += 1;
    }
    this.unscaled = u;
    this.scale = s;
    this.format = format;
    this.cached = cached;
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  /** The value in milli-units, rounded up (toward +∞) as Quantity.MilliValue does for CPU. */
  milli(): number {
    return this.scaledNumber(-3);
  }

  /** The value in units, rounded up (toward +∞) as Quantity.Value does. */
  value(): number {
    return this.scaledNumber(0);
  }

  /** The value at 10^newScale, rounded up; ±Infinity when it cannot be represented at all. */
  private scaledNumber(newScale: number): number {
    if (this.unscaled === 0n) return 0;
    // Avoid materialising 10^huge for exponents like 1e2000000000.
    if (digitCount(this.unscaled) + this.scale - newScale > 400) return this.unscaled < 0n ? -Infinity : Infinity;
    const r = this.roundedTo(newScale);
    return Number(r);
  }

  /** unscaled at 10^newScale, rounded toward +∞ (Go's scaledValue rounds the quotient up). */
  private roundedTo(newScale: number): bigint {
    const diff = this.scale - newScale;
    if (diff >= 0) return this.unscaled * pow10(diff);
    if (-diff > digitCount(this.unscaled) + 1) return this.unscaled > 0n ? 1n : 0n;
    const d = pow10(-diff);
    const q = this.unscaled / d; // truncates toward zero
    return this.unscaled % d !== 0n && this.unscaled > 0n ? q + 1n : q;
  }

  /**
   * The quantity rounded up (away from zero) to 10^scale, as Quantity.RoundUp does; the API server
   * applies RoundUp(-3) to every container resource before validating it (SetDefaults_ResourceList).
   */
  roundUp(scale: number): Quantity {
    if (this.scale >= scale) return this;
    const diff = scale - this.scale;
    if (diff > digitCount(this.unscaled) + 1) {
      return new Quantity(BigInt(this.sign()), scale, this.format);
    }
    const d = pow10(diff);
    const a = abs(this.unscaled);
    let q = a / d;
    if (a % d !== 0n) q += 1n;
    return new Quantity(this.unscaled < 0n ? -q : q, scale, this.format);
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than other (Quantity.Cmp). */
  cmp(other: Quantity): -1 | 0 | 1 {
    const a = this.sign();
    const b = other.sign();
    if (a !== b) return a < b ? -1 : 1;
    if (a === 0) return 0;
    // Same sign: compare orders of magnitude first, then exactly once the exponents are close.
    const ma = digitCount(this.unscaled) + this.scale;
    const mb = digitCount(other.unscaled) + other.scale;
    if (ma !== mb) return ma > mb === a > 0 ? 1 : -1;
    const s = Math.min(this.scale, other.scale);
    const x = this.unscaled * pow10(this.scale - s);
    const y = other.unscaled * pow10(other.scale - s);
    return x === y ? 0 : x < y ? -1 : 1;
  }

  /** The canonical form Kubernetes prints (Quantity.String): "500m", "1Gi", "1536Mi", "1e3". */
  toString(): string {
    if (this.cached !== undefined) return this.cached;
    if (this.unscaled === 0n) return "0";
    if (this.format === "BinarySI") {
      const binary = this.binaryString();
      if (binary !== undefined) return binary;
      return this.decimalString("DecimalSI");
    }
    return this.decimalString(this.format);
  }

  private binaryString(): string | undefined {
    // Small values and values with a fraction are printed as decimal SI (CanonicalizeBytes).
    if (this.scale < 0) return undefined;
    if (digitCount(this.unscaled) + this.scale > 400) return undefined;
    let v = this.unscaled * pow10(this.scale);
    if (abs(v) < 1024n) return undefined;
    let exponent = 0;
    while (v % 1024n === 0n) {
      v /= 1024n;
      exponent += 1;
    }
    // Past Ei there is no binary suffix; Kubernetes then falls back to decimal.
    const suffix = exponent === 0 ? "" : BINARY_SUFFIX_BY_EXPONENT.get(exponent * 10);
    if (suffix === undefined) return undefined;
    return `${v}${suffix}`;
  }

  private decimalString(format: QuantityFormat): string {
    let mantissa = this.unscaled;
    let exponent = this.scale;
    // Go's % keeps the dividend's sign; multiply the mantissa until the exponent is a multiple of 3.
    while (exponent % 3 !== 0) {
      mantissa *= 10n;
      exponent -= 1;
    }
    if (format === "DecimalExponent") return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
    const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
    return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
  }
}

interface Scanned {
  positive: boolean;
  /** The numeric text as written (sign, digits and dot), used for the slow path's numeric check. */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const DIGIT = /[0-9]/;
const SUFFIX_CHARS = "eEinumkKMGTP";

/** The scanner of parseQuantityString: sign, leading zeros, numerator, denominator, suffix. */
function scan(str: string): Scanned {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end && (str[0] === "-" || str[0] === "+")) {
    positive = str[0] !== "-";
    pos++;
  }
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  let i = pos;
  while (i < end && DIGIT.test(str[i]!)) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, value: str, num, denom: "", suffix: "" };
  pos = i;
  if (num.length === 0) num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && DIGIT.test(str[i]!)) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: "" };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && SUFFIX_CHARS.includes(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  pos = i;
  if (str[pos] === "-" || str[pos] === "+") pos++;
  i = pos;
  while (i < end && DIGIT.test(str[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityError(QUANTITY_FORMAT_ERROR);
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

/** quantitySuffixer.interpret: SI suffixes, binary suffixes, or e/E followed by an int32 exponent. */
function interpret(suffix: string): Suffix | undefined {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: "DecimalSI" };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const exponent = Number(rest);
    // Exponents outside int32 are rejected, not truncated (TestInterpretExponentInt32Bounds).
    if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_INT32) return undefined;
    return { base: 10, exponent, format: "DecimalExponent" };
  }
  return undefined;
}

/** Would ParseQuantity take its int64 fast path? If not, the numeric text must hold a digit. */
function fastPath(num: string, denom: string, suf: Suffix): boolean {
  if (suf.format === "BinarySI") {
    if (denom.length > 0) return false;
    const precision = 15 - num.length - Math.trunc((suf.exponent * 3) / 10) - 1;
    if (precision < 0) return false;
    return BigInt(num) << BigInt(suf.exponent) <= MAX_INT64;
  }
  const precision = 18 - (num.length + denom.length);
  return precision >= 0 && suf.exponent - denom.length >= NANO;
}

/**
 * Parses a quantity as resource.ParseQuantity does. Numbers are what a YAML or JSON number decodes
 * to; the kubelet sees the same digits, since Go prints float64 the way JavaScript does.
 * Throws QuantityError with the Kubernetes message.
 */
export function parseQuantity(input: string | number): Quantity {
  let str: string;
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw new QuantityError(QUANTITY_FORMAT_ERROR);
    str = String(input);
  } else {
    str = input;
  }
  if (str.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  if (str === "0") return new Quantity(0n, 0, "DecimalSI", "0");

  const { positive, value, num, denom, suffix } = scan(str);
  const suf = interpret(suffix);
  if (suf === undefined) throw new QuantityError(QUANTITY_SUFFIX_ERROR);

  const fast = fastPath(num, denom, suf);
  if (!fast && !/[0-9]/.test(value)) throw new QuantityError(QUANTITY_NUMERIC_ERROR);

  // Exact value: digits × 10^-len(denom) × base^exponent.
  let unscaled = BigInt(num + denom);
  let scale = -denom.length;
  if (suf.base === 10) scale += suf.exponent;
  else unscaled <<= BigInt(suf.exponent);
  if (!positive) unscaled = -unscaled;

  let format = suf.format;
  let q = new Quantity(unscaled, scale, format);
  // Round non-zero values up (away from zero) to nano units: "if you want some resources, you
  // should get some resources".
  if (q.scale < NANO) q = q.roundUp(NANO);
  if (format === "BinarySI") {
    // Binary values are capped at the int64 maximum; fractions below one print as decimal SI.
    if (q.cmp(new Quantity(MAX_INT64, 0, format)) > 0) q = new Quantity(MAX_INT64, 0, format);
    if (q.cmp(new Quantity(-MAX_INT64, 0, format)) < 0) q = new Quantity(-MAX_INT64, 0, format);
    const absQ = new Quantity(abs(q.unscaled), q.scale, format);
    if (!absQ.isZero() && absQ.cmp(new Quantity(1n, 0, format)) < 0) format = "DecimalSI";
  }

  // ParseQuantity keeps the input as the String() form when it is already canonical.
  let cached: string | undefined;
  if (fast) {
    const shifted = num + denom;
    if (suf.format === "BinarySI") {
      if (suf.exponent % 10 === 0 && (BigInt(shifted) & 7n) !== 0n) cached = str;
    } else {
      const s = suf.exponent - denom.length;
      if (s % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0") cached = str;
    }
  }
  return new Quantity(q.unscaled, q.scale, format, cached);
}

/** Like parseQuantity, but returns the error instead of throwing it. */
export function tryParseQuantity(input: string | number): Quantity | QuantityError {
  try {
    return parseQuantity(input);
  } catch (e) {
    if (e instanceof QuantityError) return e;
    return new QuantityError(QUANTITY_FORMAT_ERROR);
  }
}

/** -1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareQuantity(a: Quantity | string | number, b: Quantity | string | number): -1 | 0 | 1 {
  const x = a instanceof Quantity ? a : parseQuantity(a);
  const y = b instanceof Quantity ? b : parseQuantity(b);
  return x.cmp(y);
}
