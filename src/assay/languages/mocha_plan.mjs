// assay's plan for one mocha test file in one node process (languages/js_plans.py writes the plan,
// languages/mocha.py reads what it says): `node mocha_plan.mjs PLAN.json`, PLAN as for
// vitest_plan.mjs with "mocha" (the mocha package directory) for "vitest". Each run is what `mocha
// FILE [--grep P]` does with the project's own config (.mocharc.*, package.json "mocha": require,
// ui, timeout, file...; its `spec` replaced by the file): a new `Mocha` instance, the file loaded
// afresh (every module it loaded in the run before dropped from `require.cache`), the globals and
// env it added taken back; its tests written as jest's JSON (js_plan_common's `outcome` reads it).
// The plan shares node's start-up, mocha's and the config's `require`s (ts-node, chai plugins).
// Random order is the step's seed shuffling each suite's tests and child suites (mocha has none).
//
// What a run here shares with the next that a process per run would not: an ES module (node caches
// it for the process), a handle left open (the `mocha` command would wait on it, unless the config
// says `exit`). After a run that loaded the file as ESM or left a handle open, the plan stops with
// exit status 3 (DECLINED) when runs remain: assay makes a process per run instead.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { namePattern, outcome, passingNames, runPlan, settle } from "./js_plan_common.mjs";

const DECLINED = 3;
const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const fromMocha = createRequire(join(plan.mocha, "package.json"));
const Mocha = fromMocha("./lib/mocha.js");
const { loadOptions } = fromMocha("./lib/cli/options.js");
const { handleRequires } = fromMocha("./lib/cli/run-helpers.js");
const require = createRequire(import.meta.url);
const MOCHA_FILE = /[\\/]node_modules[\\/]mocha[\\/]/;

const FILE = resolve(plan.file);
// the options the `mocha` command would use here, but its file selection and its reporter
const config = loadOptions([]);
let plugins = {};
try {
  plugins = await handleRequires(config.require ?? []);
} catch (e) {
  // the project's setup, not the file: mocha.py's CONFIG_FAILED
  const said = String(e?.message ?? e).split("\n")[0];
  console.error(`mocha could not load its config's require (${[config.require].flat()}): ${said}`);
  process.exit(2);
}
const DROPPED = ["spec", "reporter", "reporterOption", "reporterOptions", "parallel", "watch"];
const base = Object.fromEntries(
  Object.entries({ ...config, ...plugins }).filter(
    ([k]) => !k.includes("-") && !DROPPED.includes(k) && !["grep", "fgrep", "invert"].includes(k),
  ),
);
const setup = [config.file ?? []].flat().map((f) => resolve(f)); // `file`: loaded before the specs
const kept = new Set(Object.keys(require.cache)); // mocha and the config's requires: shared

function packageType(dir) {
  for (let d = dir; ; d = dirname(d)) {
    const pkg = join(d, "package.json");
    if (existsSync(pkg)) return JSON.parse(readFileSync(pkg, "utf8")).type ?? "commonjs";
    if (dirname(d) === d) return "commonjs";
  }
}
const ext = extname(FILE);
let esm = [".mjs", ".mts"].includes(ext) || (![".cjs", ".cts"].includes(ext) && packageType(dirname(FILE)) === "module");

// mulberry32: the step's seed as a sequence, so that a seed gives the same order every time
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function shuffle(list, next) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
}
function shuffleSuite(suite, next) {
  shuffle(suite.tests, next);
  shuffle(suite.suites, next);
  for (const child of suite.suites) shuffleSuite(child, next);
}

// a reporter that keeps each test's result as jest's JSON names it; a failed hook is a failed
// entry of its own (`"before each" hook for "adds"`), as mocha's json reporter lists it
function collector(tests) {
  return function Collect(runner) {
    const add = (test, status, err) =>
      tests.push({
        ancestorTitles: test.parent ? test.parent.titlePath() : [],
        title: test.title,
        status,
        duration: test.duration ?? 0,
        failureMessages: err ? [err.stack || err.message || String(err)] : [],
      });
    runner.on("pass", (t) => add(t, "passed"));
    runner.on("fail", (t, err) => add(t, "failed", err));
    runner.on("pending", (t) => add(t, "pending"));
  };
}


function decline(why) {
  console.error(`mocha plan declined: ${why}`);
  process.exit(DECLINED);
}

const more = plan.ahead || plan.runs.length > 1; // runs may follow this one
let first = null; // the first run's JSON
const runOne = async (run) => {
  for (const key of Object.keys(require.cache)) if (!kept.has(key)) delete require.cache[key];
  const globals = new Set(Reflect.ownKeys(globalThis));
  const env = { ...process.env };
  const cwd = process.cwd();
  const resources = process.getActiveResourcesInfo();
  const tests = [];
  const mocha = new Mocha({ ...base, reporter: collector(tests) });
  if (run.pattern) mocha.grep(new RegExp(run.pattern));
  mocha.files = [...setup, FILE];
  let message = "";
  try {
    if (esm) await mocha.loadFilesAsync();
    else {
      try {
        mocha.loadFiles();
      } catch (e) {
        if (e?.code !== "ERR_REQUIRE_ESM") throw e;
        esm = true; // a .js file of an ES module the extension did not say
        await mocha.loadFilesAsync();
      }
    }
  } catch (e) {
    // a failed require's stack without mocha's own files (it loaded the file)
    const own = (line) => line.startsWith("- ") && MOCHA_FILE.test(line);
    message = (e?.stack || String(e)).split("\n").filter((line) => !own(line)).join("\n");
  }
  if (!message) {
    if (run.seed !== null) shuffleSuite(mocha.suite, random(run.seed));
    await new Promise((done) => mocha.run(() => done()));
  }
  const data = { testResults: [{ name: FILE, assertionResults: tests, message }] };
  writeFileSync(run.out, JSON.stringify(data));
  first ??= data;
  try {
    mocha.dispose();
  } catch {
    // a run still pending: nothing of it is reused
  }
  for (const key of Reflect.ownKeys(globalThis)) if (!globals.has(key)) delete globalThis[key];
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
  if (process.cwd() !== cwd) process.chdir(cwd);
  if (more && esm) decline("the file is an ES module (node keeps it for the process)");
  const left = more && !config.exit ? await settle(resources) : [];
  if (left.length) decline(`the run left ${left.join(", ")} open`);
  return outcome(data);
};

await runPlan(plan, runOne, () => passingNames(first), namePattern);
process.exit(0);
