// assay's plan for one `node --test` file in one node process (languages/js_plans.py writes the
// plan): `node node_plan.mjs PLAN.json`, PLAN as for vitest_plan.mjs without "vitest" and "seed"
// (no random order before Node 22). Each run is what `node --test [--test-name-pattern=P]
// --test-reporter=junit FILE` does, through node:test's own `run()`: the file in a fresh child
// process, its JUnit XML written to "out"; the plan shares the parent's start-up.
import { createWriteStream, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { run } from "node:test";
import { junit } from "node:test/reporters";
import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import { jsRegex, runPlan } from "./js_plan_common.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
let firstXml = null; // the first run's report

const runOne = async (step) => {
  const options = { files: [resolve(plan.file)] }; // named as `node --test` names it
  if (step.pattern) options.testNamePatterns = [step.pattern];
  let failed = false;
  let xml = "";
  const stream = run(options);
  stream.on("test:fail", () => {
    failed = true;
  });
  const tee = new PassThrough();
  tee.on("data", (chunk) => {
    if (firstXml === null) xml += chunk;
  });
  await pipeline(stream.compose(junit), tee, createWriteStream(step.out));
  firstXml ??= xml;
  return failed;
};

const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
function unescape(text) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e) =>
    e[0] === "#"
      ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : +e.slice(1))
      : (ENTITIES[e] ?? m),
  );
}

// the first run's passing tests by their names joined by " > " (describe > it), in report order,
// as assay reads the XML (node_results._walk_junit)
function passing() {
  const names = [];
  const path = [];
  let open = null; // the <testcase> whose children are being read: [name, failed or skipped]
  const tag = /<(\/?)(testsuite|testcase|failure|skipped)\b((?:[^>"]|"[^"]*")*?)(\/?)>/g;
  for (const [, close, name, attrs, selfClose] of firstXml.matchAll(tag)) {
    const title = () => unescape(/\bname="([^"]*)"/.exec(attrs)?.[1] ?? "");
    if (name === "testsuite") {
      if (close) path.pop();
      else if (!selfClose) path.push(title());
    } else if (name === "testcase") {
      if (close) {
        if (open && !open[1]) names.push(open[0]);
        open = null;
      } else if (selfClose) names.push([...path, title()].join(" > "));
      else open = [[...path, title()].join(" > "), false];
    } else if (open && !close) open[1] = true;
  }
  return [...new Set(names)];
}

const pattern = (name) => jsRegex(name.split(" > ").at(-1));
await runPlan(plan, runOne, passing, pattern);
process.exit(0);
