// Setting parsers that need the API's types (util/settings-parsers.ts has the generic ones).
import { errorMessage, Invalid } from "../util";
import { parseQuantity } from "./quantity";

/** A size as a quantity ("10Mi"), in bytes, above 0 (--container-log-max-size). */
export function positiveBytes(text: string): number {
  let bytes: number;
  try {
    bytes = parseQuantity(text).value();
  } catch (e) {
    throw new Invalid(errorMessage(e));
  }
  if (bytes <= 0) throw new Invalid("must be greater than 0");
  return bytes;
}
