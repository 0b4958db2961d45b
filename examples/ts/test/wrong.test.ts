import { expect, it } from "vitest";
import { discount } from "../src/price";

it("takes ten percent off", () => {
  expect(discount(100, 10)).toBe(90);
});

it("rounds up", () => {
  expect(discount(95, 30)).toBe(67);
});
