import { expect, it } from "vitest";
import { sum } from "../src/pricing";
import { total } from "../src/price";

it("adds prices", () => {
  const result: string = total(100, 250);
  expect(result).toBe("350");
  expect(sum(1, 2)).toBe(3);
});
