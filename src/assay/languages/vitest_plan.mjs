// assay's plan for one test file in one vitest instance (languages/js_plans.py writes the plan):
// `node vitest_plan.mjs PLAN.json`. PLAN: {"vitest": the vitest package directory, "file": the test
// file, "deadline_s": each run's, "runs": [{"out": JSON path, "seed": n or null, "pattern": regex or
// null, "last": stop after a failure}], "ahead": the runs after the first only when it passed, then
// "alone": a run per passing test, "project": the tree to snapshot between}. Each run writes what
// `vitest run --reporter=json` writes (testResults[].assertionResults[]) to its "out". Test files
// are isolated (`isolate: true`): each run gets a fresh worker and module graph, as a new
// `vitest run` would; the plan shares vitest's start-up and transform cache.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { namePattern, outcome, passingNames, runPlan } from "./js_plan_common.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const NOT_TAKEN = "assay: vitest's config takes no test file by this name"; // node_checks.py
const { createVitest } = await import(pathToFileURL(`${plan.vitest}/dist/node.js`).href);
const silent = { onInit() {} };
const vitest = await createVitest("test", {
  watch: false,
  isolate: true,
  color: false,
  reporters: [silent],
  coverage: { enabled: false }, // a config's coverage would write coverage/ into the tree
});

function titles(task) {
  const out = [];
  for (let p = task.parent; p && p.type === "suite"; p = p.parent) out.unshift(p.name);
  return out;
}

function report(result) {
  const testResults = result.testModules.map((module) => {
    const assertionResults = [...module.children.allTests()].map((test) => {
      const r = test.result();
      const status = r.state === "pending" ? "skipped" : r.state;
      return {
        ancestorTitles: titles(test),
        title: test.name,
        status,
        duration: test.diagnostic()?.duration ?? 0,
        failureMessages: (r.errors ?? []).map((e) => e.stack || e.message || String(e)),
      };
    });
    const errors = module.errors().map((e) => e.stack || e.message || String(e));
    return { name: module.moduleId, assertionResults, message: errors.join("\n") };
  });
  const unhandled = result.unhandledErrors.map((e) => e?.stack || e?.message || String(e));
  return { testResults, unhandledErrors: unhandled };
}

const user = { ...vitest.config.sequence }; // the project's own order, for runs in file order
let first = null; // the first run's report
let code = 0;
try {
  await vitest.init();
  const specs = await vitest.getRelevantTestSpecifications([plan.file]);
  if (!specs.length) {
    // the project's vitest never runs this file (its `include` leaves it out): say so, as
    // `vitest run FILE` does ("No test files found"), instead of an empty run
    const { include, exclude } = vitest.config;
    console.error(`${NOT_TAKEN} ${JSON.stringify({ include, exclude })}`);
    await vitest.close();
    process.exit(4);
  }
  const runOne = async (run) => {
    vitest.config.sequence.shuffle = run.seed === null ? user.shuffle : true;
    vitest.config.sequence.seed = run.seed === null ? user.seed : run.seed;
    if (run.pattern) vitest.setGlobalTestNamePattern(run.pattern);
    else vitest.resetGlobalTestNamePattern();
    const result = await vitest.runTestSpecifications(specs, true);
    const data = report(result);
    writeFileSync(run.out, JSON.stringify(data));
    first ??= data;
    return outcome(data);
  };
  await runPlan(plan, runOne, () => passingNames(first), namePattern);
} catch (e) {
  console.error(e?.stack || String(e));
  code = 1;
}
await vitest.close();
process.exit(code);
