import { expect, it } from "vitest";
import { total } from "../src/price";

const cart: number[] = [];

it("adds to the cart", () => {
  cart.push(total(100, 250));
  expect(cart).toHaveLength(1);
});

it("totals the cart", () => {
  expect(total(...cart)).toBe(350);
});
