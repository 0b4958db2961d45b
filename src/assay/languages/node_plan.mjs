// assay's plan for one `node --test` file in one node process (languages/js_plans.py writes the
// plan): `node node_plan.mjs PLAN.json`, PLAN as for vitest_plan.mjs without "vitest" and "seed"
// (no random order before Node 22). Each run is what `node --test [--test-name-pattern=P]
// --test-reporter=junit FILE` does, through node:test's own `run()`: the file in a fresh child
// process, its JUnit XML written to "out"; the plan shares the parent's start-up.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { run } from "node:test";
import { junit } from "node:test/reporters";
import { jsRegex, runPlan } from "./js_plan_common.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
let first = null; // the first run's tests: [full name, status]

const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
function unescape(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e) =>
    e[0] === "#"
      ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : +e.slice(1))
      : (ENTITIES[e] ?? m),
  );
}

// the tests of a JUnit report, [titles joined by " > ", status], in report order, as assay reads
// it (node_results._walk_junit: a <testsuite> is a describe, a <testcase> a test)
function tests(xml) {
  const out = [];
  const path = [];
  let open = null; // the <testcase> whose children are being read: [name, status]
  const tag = /<(\/?)(testsuite|testcase|failure|skipped)\b((?:[^>"]|"[^"]*")*?)(\/?)>/g;
  for (const [, close, name, attrs, selfClose] of xml.matchAll(tag)) {
    const title = () => unescape(/\bname="([^"]*)"/.exec(attrs)?.[1] ?? "");
    if (name === "testsuite") {
      if (close) path.pop();
      else if (!selfClose) path.push(title());
    } else if (name === "testcase") {
      if (close) {
        if (open) out.push(open);
        open = null;
      } else if (selfClose) out.push([[...path, title()].join(" > "), "passed"]);
      else open = [[...path, title()].join(" > "), "passed"];
    } else if (open && !close) {
      open[1] = name === "failure" || open[1] === "failed" ? "failed" : "skipped";
    }
  }
  return out;
}

const runOne = async (step) => {
  const options = { files: [resolve(plan.file)] }; // named as `node --test` names it
  if (step.pattern) options.testNamePatterns = [step.pattern];
  let xml = "";
  for await (const chunk of run(options).compose(junit)) xml += chunk;
  writeFileSync(step.out, xml);
  const found = tests(xml);
  first ??= found;
  return { failed: found.some(([, s]) => s === "failed"), statuses: new Map(found) };
};

const passing = () => [...new Set(first.filter(([, s]) => s === "passed").map(([n]) => n))];
const pattern = (name) => jsRegex(name.split(" > ").at(-1));
await runPlan(plan, runOne, passing, pattern);
process.exit(0);
