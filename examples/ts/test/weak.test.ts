import { expect, it } from "vitest";
import { total } from "../src/price";

// Passes, and asserts almost nothing: gate 4 rejects it (it checks only that total returns a
// number, so most mutants of the code it runs survive).
it("total returns a number", () => {
  expect(typeof total(100, 250)).toBe("number");
});
