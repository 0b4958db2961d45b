// assay's ignorer plugin for StrykerJS (`ignorers: [..., "assay-logging"]`): leaves out logging
// calls, as Python's operators never mutate them (`mutation/edits.py`): `console.log(...)`,
// `logger.info(...)`, `this.log.debug(...)`, and `debug(...)`, the `debug` package's idiom
// (`const debug = require('debug')('router')`). Their mutants changed only a message no test
// reads: router's survivors were led by `debug('dispatching %s %s', …)` → `debug("", …)`.
// Stryker leaves a node's children out with it; the reason is `stryker_scope.py`'s, beside this.
import { readFileSync } from "node:fs";

const REASON = JSON.parse(readFileSync(new URL("./logging.json", import.meta.url), "utf8")).reason;
const METHODS = new Set(["log", "debug", "info", "warn", "warning", "error", "trace", "fatal"]);

/** The name a callee's object goes by: `console`, `logger`, `this.log` → "log". */
function nameOf(node) {
  if (node?.type === "Identifier") return node.name;
  if (node?.type === "MemberExpression" && !node.computed) return nameOf(node.property);
  return "";
}

function isLogging(call) {
  const callee = call.callee;
  if (callee?.type === "Identifier") return callee.name === "debug";
  if (callee?.type !== "MemberExpression" || callee.computed) return false;
  const receiver = nameOf(callee.object).toLowerCase();
  return METHODS.has(nameOf(callee.property)) && (receiver === "console" || receiver.includes("log"));
}

const ignorer = {
  shouldIgnore(path) {
    return path.isCallExpression() && isLogging(path.node) ? REASON : undefined;
  },
};

export const strykerPlugins = [{ kind: "Ignore", name: "assay-logging", value: ignorer }];
