import { describe, expect, it } from "vitest";
import { discount, total } from "../src/price";

describe("total", () => {
  it("adds prices", () => {
    expect(total(100, 250)).toBe(350);
  });

  it("rejects negative prices", () => {
    expect(() => total(100, -1)).toThrow(RangeError);
  });
});

describe("discount", () => {
  it("rounds down", () => {
    expect(discount(95, 30)).toBe(66);
    expect(discount(95, 100)).toBe(0);
    expect(() => discount(95, 101)).toThrow(RangeError);
  });
});
