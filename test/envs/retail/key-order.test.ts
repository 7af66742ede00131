import { describe, expect, it } from "vitest";
import { objectKeyOrders } from "../../../src/envs/retail/key-order";

describe("objectKeyOrders", () => {
  it("reads keys in file order where JS objects would reorder integer-like ones", () => {
    const text =
      '{"users": {"x": 1}, "products": {"20": {"name": "a\\"}{,", "variants": {"9": {}, "10": [1, {"3": 2}], "1": "v"}}, "5": {"variants": {}}}, "after": {"2": 1, "1": 2}}';
    expect(Object.keys(JSON.parse(text).products)).toEqual(["5", "20"]);
    const orders = objectKeyOrders(text, {
      maxDepth: 3,
      within: ["products"],
      wanted: (path) => path[0] === "products" && (path.length === 1 || path[2] === "variants"),
    });
    expect(orders.get('["products"]')).toEqual(["20", "5"]);
    expect(orders.get('["products","20","variants"]')).toEqual(["9", "10", "1"]);
    expect(orders.get('["products","5","variants"]')).toEqual([]);
    expect(orders.size).toBe(3);
  });

  it("decodes escaped keys and stops after the members it was asked to read", () => {
    const text = '{"a": {"k\\u00e9y": 1, "\\"q\\"": 2}, "b": {"late": 1}}';
    const orders = objectKeyOrders(text, { maxDepth: 2, within: ["a"], wanted: () => true });
    expect(orders.get('["a"]')).toEqual(["kéy", '"q"']);
    expect(orders.has('["b"]')).toBe(false);
  });
});
