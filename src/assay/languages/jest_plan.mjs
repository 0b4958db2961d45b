// assay's plan for one jest test file in one node process (languages/js_plans.py writes the plan):
// `node jest_plan.mjs PLAN.json`, PLAN as for vitest_plan.mjs with "jest" (the jest package
// directory) for "vitest". Each run is jest's own `runCLI` on the argv the `jest --ci --json
// --outputFile=OUT --runTestsByPath FILE [--randomize --seed=N] [-t P]` command parses to, in band
// as that command runs one file: a fresh test environment and module registry per run, the JSON
// the command writes written to "out". The plan shares jest's start-up, config and transforms.
//
// What a run in this process shares with the runs after it, and a process per run would not: the
// event loop and node's own modules. So after each run, when it left something open that would
// keep the `jest` command from exiting (`process.getActiveResourcesInfo()`: a timer, a socket;
// unless the project's jest config has forceExit), or changed a node module the test file
// required (fs, http...: a property added, replaced or removed, a process listener), the plan
// stops with exit status 3 (DECLINED) and assay judges the file with the jest command instead.
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import vm from "node:vm";
import { namePattern, outcome, passingNames, runPlan, settle } from "./js_plan_common.mjs";

const DECLINED = 3;
const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
// ts-jest's TypeScript (`lib/typescript.js`, 9 MB) from the V8 code cache gate 1's tsc made
// (`tsc_cache.py`), a read-only copy: 0.15-0.2 s of each TypeScript plan's start
if (plan.typescript && plan.typescriptCache)
  createRequire(import.meta.url)("./typescript_cached.cjs").use(plan.typescript, plan.typescriptCache);
const fromJest = createRequire(join(plan.jest, "package.json"));
const { runCLI } = fromJest(plan.jest);
const fromCli = createRequire(fromJest.resolve("jest-cli/package.json"));
const { yargsOptions } = fromCli("jest-cli");
const yargs = fromCli("yargs");
// the jest-runtime jest's runner loads the test files with
const fromRunner = createRequire(createRequire(fromJest.resolve("@jest/core")).resolve("jest-runner"));
const Runtime = fromRunner("jest-runtime").default;

// each node module a test file required (jest hands it the process's own), with its own
// properties as the first file to require it found them
const required = new Map();
const requireCore = Runtime.prototype._requireCoreModule;
Runtime.prototype._requireCoreModule = function (name, supportPrefix) {
  const module = requireCore.call(this, name, supportPrefix);
  const kept = module !== null && (typeof module === "object" || typeof module === "function");
  if (kept && !required.has(name)) required.set(name, [module, propertiesOf(module)]);
  return module;
};

// jest 30 compiles every module with `vm.compileFunction`, which V8 never caches: each run's
// fresh environment parsed and compiled jest's own modules again (jest-circus, expect,
// jest-snapshot: 0.03 s of a 0.07 s run alone of ts-dedent's). jest 29 compiled them as a
// `vm.Script` of the module wrapped in a function, which V8's per-process compilation cache
// answers after the first run; jest's own modules (`isInternalModule`) go that way again here.
// Each run still evaluates them afresh in its own context: only V8's code is shared, no state.
const INTERNAL = Symbol("assay.jestInternal");
const EVAL_RESULT = "Object.<anonymous>"; // jest 29's wrapper key
const requireInternal = Runtime.prototype.requireInternalModule;
Runtime.prototype.requireInternalModule = function (...args) {
  const executor = Object.getPrototypeOf(this.executor ?? {});
  if (typeof executor.exec === "function" && typeof executor.compile === "function")
    compileInternalAsScripts(executor);
  return requireInternal.apply(this, args);
};

function compileInternalAsScripts(executor) {
  if (executor[INTERNAL]) return;
  executor[INTERNAL] = true;
  const { exec, compile } = executor;
  let internal = false; // the module exec is compiling is one of jest's own
  executor.exec = function (module, options, ...rest) {
    const outer = internal;
    internal = options?.isInternalModule === true;
    try {
      return exec.call(this, module, options, ...rest);
    } finally {
      internal = outer;
    }
  };
  executor.compile = function (source, filename) {
    const context = internal ? this.environment.getVmContext() : null;
    if (context == null) return compile.call(this, source, filename);
    const params = this.injectedModuleParameters.join(",");
    const wrapped = `({"${EVAL_RESULT}":function(${params}){${source}\n}});`;
    let script;
    try {
      script = new vm.Script(wrapped, {
        filename,
        importModuleDynamically: (specifier, _script, attributes, ...rest) =>
          this.dynamicImport(specifier, filename, context, attributes, rest[0]),
      });
    } catch {
      return compile.call(this, source, filename); // as jest would report it
    }
    return script.runInContext(context)[EVAL_RESULT];
  };
}

function propertiesOf(module) {
  const out = new Map();
  for (const key of Reflect.ownKeys(module)) {
    const desc = Object.getOwnPropertyDescriptor(module, key);
    out.set(key, desc && ("value" in desc ? desc.value : desc.get));
  }
  return out;
}

const same = (a, b) => a.size === b.size && [...a].every(([k, v]) => b.has(k) && b.get(k) === v);

function listeners() {
  return new Map(process.eventNames().map((e) => [e, process.listenerCount(e)]));
}

// a node module a test file changed, or a process listener it added, that a run after would see
function leftChanged(listenersBefore) {
  for (const [name, [module, props]] of required)
    if (!same(props, propertiesOf(module))) return `node:${name}`;
  return same(listenersBefore, listeners()) ? null : "a process listener";
}


// the command's argv as jest-cli parses it (its yargs options, dashed keys dropped)
function argvOf(args) {
  const parsed = yargs(args).options(yargsOptions).parserConfiguration({}).parseSync();
  const argv = { $0: "jest", _: parsed._ };
  for (const [key, value] of Object.entries(parsed)) if (!key.includes("-")) argv[key] = value;
  return argv;
}

// the run's results are dropped: a process of its own judges it
function decline(run, why) {
  rmSync(run.out, { force: true });
  console.error(`jest plan declined: ${why}`);
  process.exit(DECLINED);
}

let first = null; // the first run's JSON
const runOne = async (run) => {
  // no coverage: a config's collectCoverage writes coverage/ into the tree (blamed on the test)
  const args = ["--ci", "--json", `--outputFile=${run.out}`, "--runTestsByPath", plan.file];
  args.push("--coverage=false");
  if (run.seed !== null) args.push("--randomize", `--seed=${run.seed}`);
  if (run.pattern) args.push("-t", run.pattern);
  const argv = argvOf(args);
  const resources = process.getActiveResourcesInfo();
  const before = listeners();
  const { globalConfig } = await runCLI(argv, argv.projects ?? [process.cwd()]);
  const left = globalConfig.forceExit ? [] : await settle(resources);
  if (left.length) decline(run, `the run left ${left.join(", ")} open`);
  const touched = leftChanged(before);
  if (touched) decline(run, `the run changed ${touched}`);
  const data = JSON.parse(readFileSync(run.out, "utf8"));
  first ??= data;
  return outcome(data);
};

await runPlan(plan, runOne, () => passingNames(first), namePattern);
process.exit(0);
