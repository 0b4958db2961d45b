// TypeScript's `lib/typescript.js` (9 MB, which ts-jest loads in every jest plan process) compiled
// with a V8 code cache (`tsc_cache.py` says who may make one and why a cache is code). Node parses
// and compiles it at each start, 0.15-0.2 s; from a cache it does not.
//   use(MODULE, CACHE): the next time node compiles MODULE (a real path), it is compiled as node
//     compiles a module, as a `vm.Script` handed CACHE; a rejected or unreadable cache compiles as
//     without one. Returns the state: `taken` once V8 took the cache.
//   make(MODULE, OUT): loads MODULE, transpiles a small file with it (the functions ts-jest runs
//     are then compiled and in the cache) and writes the cache to OUT (`wx`: never over a file).
"use strict";
const fs = require("node:fs");
const Module = require("node:module");
const path = require("node:path");
const vm = require("node:vm");

function use(modulePath, cachePath) {
  const state = { script: null, taken: false };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    if (filename !== modulePath) return compile.call(this, content, filename);
    Module.prototype._compile = compile; // once
    let cachedData;
    try {
      cachedData = cachePath === null ? undefined : fs.readFileSync(cachePath);
    } catch {
      cachedData = undefined;
    }
    try {
      state.script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      return compile.call(this, content, filename); // as node would report it
    }
    state.taken = cachedData !== undefined && !state.script.cachedDataRejected;
    const run = state.script.runInThisContext({ displayErrors: true });
    const require = Module.createRequire(filename);
    return run.call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  return state;
}

const SAMPLE = `import { describe, expect, it } from "@jest/globals";
import dedent, { type Options } from "../index";
enum Kind { A = 1, B }
interface Row<T> { name: string; value?: T; readonly kind: Kind }
export class Table<T> implements Iterable<Row<T>> {
  private rows: Row<T>[] = [];
  constructor(public readonly title: string) {}
  add(row: Row<T>): this { this.rows.push({ ...row }); return this; }
  *[Symbol.iterator]() { yield* this.rows; }
}
describe("dedent", () => {
  it.each([[1, 2], [3, 4]])("adds %i", async (a: number, b: number) => {
    const t = new Table<number>(\`t \${a}\`).add({ name: "x", value: a + b, kind: Kind.A });
    expect([...t].map((r) => r.value ?? 0)).toEqual([a + b]);
    expect(dedent\`  x\n  y\` as string).toBe("x\\ny");
  });
});
`;

function make(modulePath, outPath) {
  const state = use(modulePath, null);
  const ts = require(modulePath);
  if (state.script === null) return;
  for (const module of [ts.ModuleKind.CommonJS, ts.ModuleKind.ESNext])
    ts.transpileModule(SAMPLE, {
      compilerOptions: { module, target: ts.ScriptTarget.ES2019, esModuleInterop: true },
      fileName: "sample.spec.ts",
      reportDiagnostics: true,
    });
  fs.writeFileSync(outPath, state.script.createCachedData(), { flag: "wx", mode: 0o644 });
}

module.exports = { use, make };
