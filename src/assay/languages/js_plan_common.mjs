// What assay's plan scripts (vitest_plan.mjs, node_plan.mjs, jest_plan.mjs, mocha_plan.mjs) share; see
// languages/js_plans.py.
import { lstatSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join, relative } from "node:path";

// as js_plans.js_regex: the whole name, regex characters escaped
export function jsRegex(text) {
  return "^" + text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") + "$";
}

// size and mtime (ns) of every file of the project, as Workspace.snapshot takes them
export function snapshot(root) {
  const out = {};
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        try {
          isDir = statSync(path).isDirectory(); // a linked directory is not entered
        } catch {
          isDir = false;
        }
        if (isDir) continue;
      }
      if (isDir) {
        if (e.name !== "__pycache__") walk(path);
        continue;
      }
      try {
        const st = lstatSync(path, { bigint: true });
        out[relative(root, path)] = [st.size.toString(), st.mtimeNs.toString()];
      } catch {
        // gone meanwhile
      }
    }
  };
  walk(root);
  return out;
}

// Runs `plan.runs` in order, `runOne(run)` -> {failed, statuses: Map full name -> status}. A
// step (the runs of one "step") marked "last" ends the plan when one of its runs left no result,
// or a watched test (`plan.watch`; a run alone: its own) did not pass in it: as assay's
// `each_step` stops. Ahead mode: the runs after the first only when no test failed in it, watching
// `passing()` of it, then a run alone per such test (step `plan.alone_step`). A run past the
// deadline ends the process (exit 124).
export async function runPlan(plan, runOne, passing, pattern) {
  const runs = [...plan.runs];
  let watch = plan.watch ?? [];
  let bad = false; // in the current step
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    const timer = setTimeout(() => {
      console.error(`timed out after ${plan.deadline_s} s`);
      process.exit(124);
    }, plan.deadline_s * 1000);
    const { failed, statuses } = await runOne(run);
    clearTimeout(timer);
    if (plan.ahead && i === 0) {
      const names = failed ? [] : passing();
      if (names.length === 0) return;
      watch = names;
      const dir = dirname(run.out);
      const suffix = extname(run.out);
      const alone = plan.alone ? names : [];
      for (const name of alone) {
        const out = join(dir, `run-${runs.length}${suffix}`);
        runs.push({ out, seed: null, pattern: pattern(name), name, step: plan.alone_step, last: true });
      }
      const tree = snapshot(plan.project);
      writeFileSync(join(dir, "ahead.json"), JSON.stringify({ alone, tree }));
      continue;
    }
    const judged = run.name != null ? [run.name] : watch;
    bad ||=
      statuses.size === 0 ||
      (run.name != null && !statuses.has(run.name)) ||
      judged.some((n) => statuses.has(n) && statuses.get(n) !== "passed");
    if (runs[i + 1]?.step !== run.step) {
      if (bad && run.last) return;
      bad = false;
    }
  }
}

// jest's JSON report (vitest's plan writes the same shape): each test's status by its full name
// (titles joined by " > ", as assay's ids name them), and whether the run failed
export function outcome(data) {
  const statuses = new Map();
  for (const m of data.testResults) {
    if (m.message && m.assertionResults.length === 0) statuses.set("<file>", "failed");
    for (const a of m.assertionResults)
      statuses.set([...a.ancestorTitles, a.title].join(" > "), a.status);
  }
  const failed = data.testResults.some(
    (m) => m.message || m.assertionResults.some((a) => a.status === "failed"),
  );
  return { failed, statuses };
}

// the passing tests of a report by full name, once each
export function passingNames(data) {
  const names = [];
  for (const m of data.testResults)
    for (const a of m.assertionResults)
      if (a.status === "passed") names.push([...a.ancestorTitles, a.title].join(" > "));
  return [...new Set(names)];
}

// a full name as a test-name pattern (jest and vitest match titles joined by spaces)
export const namePattern = (name) => jsRegex(name.split(" > ").join(" "));

// the resources (process.getActiveResourcesInfo) open now that were not in `before`
function openSince(before) {
  const counts = new Map();
  for (const r of before) counts.set(r, (counts.get(r) ?? 0) + 1);
  const left = [];
  for (const r of process.getActiveResourcesInfo())
    if ((counts.get(r) ?? 0) > 0) counts.set(r, counts.get(r) - 1);
    else left.push(r);
  return left;
}

// what a run left open once short timers have fired: a runner's own (jest's reporter debounces its
// last status update by 100 ms), or a test's that fires this soon, which does not hold the runner's
// command either; a longer one still shows
export async function settle(before, ms = 150) {
  await new Promise((done) => setImmediate(done)); // what the run closed as it ended
  for (let waited = 0; waited < ms; waited += 10) {
    if (openSince(before).length === 0) return [];
    await new Promise((done) => setTimeout(done, 10).unref());
  }
  return openSince(before);
}
