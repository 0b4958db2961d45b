/** Prices in cents. */

/** The sum of the given prices; a negative price is an error. */
export function total(...cents: number[]): number {
  let sum = 0;
  for (const c of cents) {
    if (c < 0) {
      throw new RangeError(`negative price: ${c}`);
    }
    sum += c;
  }
  return sum;
}

/** The price after a discount of pct percent, rounded down. */
export function discount(cents: number, pct: number): number {
  if (pct < 0 || pct > 100) {
    throw new RangeError(`discount out of range: ${pct}`);
  }
  return Math.floor((cents * (100 - pct)) / 100);
}
