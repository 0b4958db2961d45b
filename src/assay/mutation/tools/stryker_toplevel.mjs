// assay's ignorer plugin for StrykerJS at gate 4 with a per-test runner (vitest, jest, mocha):
// leaves out a module's top-level code, which runs when the module loads, not in a function the
// tests call (Python's gate 4 and the command runner's V8 scope leave it out too). Stryker covers
// such "static" code with every test, so a file was charged with every string of a module-level
// table it never tests. A node is out when no function encloses it, no class body holds it
// (fields run at construction), and it holds no function or class itself; its mutants are
// reported `Ignored` with the reason `stryker_scope.py` writes beside it (out of gate 4's scope).
import { readFileSync } from "node:fs";

const REASON = JSON.parse(readFileSync(new URL("./toplevel.json", import.meta.url), "utf8")).reason;
const CODE = new Set([
  "FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression", "ObjectMethod",
  "ClassMethod", "ClassPrivateMethod", "ClassDeclaration", "ClassExpression",
]);
const holds = new WeakMap();

/** Whether `node` is, or has below it, a function or a class. */
function holdsCode(node) {
  if (!node || typeof node.type !== "string") return false;
  if (CODE.has(node.type)) return true;
  if (holds.has(node)) return holds.get(node);
  let found = false;
  for (const key of Object.keys(node)) {
    if (found || key === "loc" || key === "leadingComments" || key === "trailingComments") continue;
    const value = node[key];
    if (Array.isArray(value)) found = value.some((v) => v && typeof v === "object" && holdsCode(v));
    else if (value && typeof value === "object") found = holdsCode(value);
  }
  holds.set(node, found);
  return found;
}

const ignorer = {
  shouldIgnore(path) {
    if (path.getFunctionParent() || path.findParent((p) => p.isClassBody())) return undefined;
    return holdsCode(path.node) ? undefined : REASON;
  },
};

export const strykerPlugins = [{ kind: "Ignore", name: "assay-top-level", value: ignorer }];
