// Gate 4's observer for a mocha or `node --test` file (`stryker_observe.mjs` starts it, in
// Stryker's instrumented copy once every mutant has run): the file's tests on the original code,
// twice, then each survivor's covering tests with that mutant active (Stryker's run-time switch),
// under the membrane (`stryker_membrane.cjs`). mocha runs in this process on the
// project's mocha, per test, the switch set as Stryker's mocha runner sets it
// (`__stryker__.activeMutant`); `node --test` runs the file in a process of its own per run, the
// switch in its environment (`__STRYKER_ACTIVE_MUTANT__`, as Stryker's command runner), the membrane
// preloaded (`stryker_preload.cjs`): the file is one test. A survivor whose every covering test
// received what it received from the original is unexercised. As Python's `exercised.py`: what
// differs between the two runs of the original (a port, a date) is left out, leaf by leaf; a test
// whose number of observations differs between them, or that observed nothing, stays charged, and
// its survivors are not run again. A survivor's run stops at its first test that received
// something else. Verdicts are written as they come: stopped at gate 4's limit, what was judged
// stays.
// Usage: node stryker_observer.cjs PLAN.json (writes the verdicts to the plan's `out`).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");
const { createRequire } = require("node:module");
const membrane = require("./stryker_membrane.cjs");

const NAMESPACE = "__stryker__";

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function mochaOf(plan) {
  const fromMocha = createRequire(path.join(plan.mocha, "package.json"));
  const Mocha = fromMocha("./lib/mocha.js");
  const { loadOptions } = fromMocha("./lib/cli/options.js");
  const helpers = fromMocha("./lib/cli/run-helpers.js");
  const options = loadOptions([]) || {};
  const rootHooks = options.require ? await helpers.handleRequires(options.require) : undefined;
  // the project's timeout (mocha's 2 s by default), never none: a test that hangs observed fails,
  // and its survivors stay counted
  const mocha = new Mocha({ reporter: function Silent() {}, timeout: options.timeout || 2000, rootHooks });
  mocha.cleanReferencesAfterRun(false);
  if (options.ui) mocha.ui(options.ui);
  for (const file of plan.spec) mocha.addFile(file);
  return mocha;
}

/** A mocha driver: one run of the tests `grep` names with mutant `id` active (none: null);
 * per test, its record (null: too many observations to keep). */
async function mochaDriver(plan) {
  membrane.install(plan.targets);
  const mocha = await mochaOf(plan);
  const ns = globalThis[NAMESPACE] || (globalThis[NAMESPACE] = {});
  ns.activeMutant = undefined;
  await mocha.loadFilesAsync();
  return (id, grep, enough) => {
    ns.activeMutant = id === null ? undefined : String(id);
    ns.hitLimit = ns.hitCount = undefined;
    mocha.grep(new RegExp(grep.map((t) => `(^${escape(t)}$)`).join("|")));
    const seen = {};
    return new Promise((resolve) => {
      const runner = mocha.run(() => resolve(seen));
      runner.on("test", () => membrane.begin());
      runner.on("test end", (test) => {
        const calls = membrane.end();
        const title = test.fullTitle();
        seen[title] = calls ? { calls, failed: test.state === "failed" } : null;
        if (enough && enough(title, seen[title])) runner.abort(); // stops after this test
      });
    });
  };
}

/** A `node --test` driver: the candidate files in a process of their own per run, the membrane
 * preloaded; the run is one test, named by `plan.whole`. */
function nodeDriver(plan) {
  const dir = path.join(path.dirname(plan.out), "observed-runs");
  let n = 0;
  return async (id) => {
    const here = path.join(dir, String(n++));
    fs.mkdirSync(here, { recursive: true });
    const preload = path.join(__dirname, "stryker_preload.cjs");
    const ran = spawnSync(process.execPath, ["--test", ...plan.spec], {
      stdio: "ignore",
      env: {
        ...process.env,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS || ""} --require "${preload}"`,
        __STRYKER_ACTIVE_MUTANT__: id === null ? "" : String(id),
        ASSAY_OBSERVE_TARGETS: JSON.stringify(plan.targets),
        ASSAY_OBSERVE_DIR: here,
      },
    });
    // each process that called into the project wrote its record (node --test runs each file in
    // a process of its own), in the order of the files
    const records = fs.readdirSync(here).sort().map((f) => JSON.parse(fs.readFileSync(path.join(here, f), "utf8")));
    const over = records.some((r) => r.calls === null);
    const calls = records.flatMap((r) => r.calls || []);
    return { [plan.whole]: over ? null : { calls, failed: ran.status !== 0 } };
  };
}

function index(calls) {
  return calls.map((c) => ({ label: `${c.kind}:${c.name}`, leaves: flatten(c) }));
}

function flatten(call) {
  const out = new Map();
  for (const key of ["returned", "threw", "args", "self", "value", "state"]) {
    for (const [at, text] of call[key] || []) out.set(`${key}${at}`, text);
  }
  return out;
}

/** Whether a test received under a mutant (`m`) what it received from the original (`a`, `b`:
 * its two runs): true, null when the original's runs cannot tell (unsteady, nothing observed), or
 * the first difference (a text: which observation, what the original gave, what the mutant). */
function same(a, b, m) {
  if (!a || !b || a.failed || b.failed || !a.calls.length || a.calls.length !== b.calls.length) {
    return null;
  }
  if (m === undefined) return "not run under the mutant";
  if (m === null) return "too many observations under the mutant";
  if (m.failed) return "a test failed under the mutant";
  if (m.calls.length !== a.calls.length) return `${m.calls.length} observations, not ${a.calls.length}`;
  const [ia, ib, im] = [index(a.calls), index(b.calls), index(m.calls)];
  for (let i = 0; i < ia.length; i++) {
    if (ia[i].label !== ib[i].label) return null;
    const at = `observation ${i + 1} (${ia[i].label})`;
    if (im[i].label !== ia[i].label) return `${at}: ${im[i].label}`;
    for (const [leaf, text] of ia[i].leaves) {
      const got = im[i].leaves.get(leaf);
      if (ib[i].leaves.get(leaf) === text && got !== text) return `${at} ${leaf}: ${text} -> ${got ?? "(none)"}`;
    }
    for (const leaf of im[i].leaves.keys()) {
      if (!ia[i].leaves.has(leaf) && !ib[i].leaves.has(leaf)) {
        return `${at} ${leaf}: (none) -> ${im[i].leaves.get(leaf)}`;
      }
    }
  }
  return true;
}

/** This process's CPU time and its waited-for children's (Linux's /proc), in seconds. */
function cpuSeconds() {
  try {
    const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0) / 100;
  } catch {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1e6;
  }
}

async function main() {
  const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const verdicts = {};
  const write = (extra) => fs.writeFileSync(plan.out, JSON.stringify({ verdicts, ...extra }), "utf8");
  write({ error: "the observer did not finish" });
  const run = plan.runner === "node" ? nodeDriver(plan) : await mochaDriver(plan);
  const wanted = [...new Set(plan.survivors.flatMap((s) => s.tests))];
  // the original twice first: what they agree on is what a mutant is held to
  const first = await run(null, wanted);
  const second = await run(null, wanted);
  const steady = (t) => same(first[t], second[t], first[t]) === true;
  for (const s of plan.survivors) {
    const unsteady = s.tests.filter((t) => !steady(t));
    let differs = null;
    if (!unsteady.length) {
      // mocha stops at the first test that received something else: the survivor counts
      const judged = new Set();
      const judge = (t, seen) => {
        judged.add(t);
        const got = same(first[t], second[t], seen);
        if (got !== true && differs === null) differs = `${t}: ${String(got).slice(0, 300)}`;
        return got !== true;
      };
      const seen = await run(s.id, s.tests, judge);
      for (const t of s.tests) if (differs === null && !judged.has(t)) judge(t, seen[t]);
    }
    verdicts[s.id] = { unexercised: !unsteady.length && differs === null, unsteady, differs };
    write({ error: "the observer did not finish" }); // what it has judged stays if it is stopped
  }
  write({ cpu_s: cpuSeconds() });
  process.exit(0); // a server or timer a test left open must not hold the run
}

main().catch((err) => {
  try {
    const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
    fs.writeFileSync(plan.out, JSON.stringify({ verdicts: {}, error: String(err && err.stack || err) }));
  } catch {}
  process.exit(1);
});
