// assay's test runner plugin for StrykerJS on tape files (CommonJS): each mutant runs the file in
// Stryker's own worker process instead of a new process (`node --test <file>` and its child):
// tape and the other packages stay loaded, the project's own modules and tape's entry (its
// harness) are loaded afresh for every run, with Stryker's mutant switched on before they load.
// Stryker is told of each top-level tape test, so that its coverage is per test and a mutant runs
// only the tests that reach it. `stryker_tape.py` writes `tape.json` (the test files) beside this.
//
// What a process per mutant gave for free is kept: a run that changes the built-ins or globals
// (a mutant polluting Object.prototype), leaves timers or handles behind, or calls process.exit
// leaves its worker dirty, and that worker exits before its next run: Stryker starts a fresh one
// and runs the mutant there. As in a process, an exception no test catches (tape lets a test's
// own throw through) fails the test running. A mutant that loops for ever is stopped by Stryker's
// hit limit (a count of the mutant's runs, not time).
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";

const config = JSON.parse(readFileSync(new URL("./tape.json", import.meta.url), "utf8"));
const NS = "__stryker__"; // Stryker's instrumenter namespace (its default)
const WATCHED = [
  globalThis, Object, Object.prototype, Array, Array.prototype, Function.prototype,
  String.prototype, Number.prototype, Boolean.prototype, Symbol.prototype, Date.prototype,
  RegExp.prototype, Error.prototype, Promise.prototype, Map.prototype, Set.prototype, JSON,
  Math, Reflect,
];

function own(o) {
  const out = new Map();
  for (const key of Reflect.ownKeys(o)) {
    if (o === globalThis && key === NS) continue;
    const d = Object.getOwnPropertyDescriptor(o, key);
    out.set(key, d && [d.value, d.get, d.set, d.writable, d.enumerable, d.configurable]);
  }
  return out;
}

const STDIO = new Set(["PipeWrap", "TTYWrap"]); // stdout, opened by a first write: not a leftover

function resources() {
  const out = new Map();
  for (const kind of process.getActiveResourcesInfo()) {
    if (!STDIO.has(kind)) out.set(kind, (out.get(kind) ?? 0) + 1);
  }
  return out;
}

/** What a run left changed against the `baseline` of a clean run, as a few words, or "". */
function leftover(baseline) {
  for (const [i, o] of WATCHED.entries()) {
    const now = own(o);
    const name = o === globalThis ? "globalThis" : (o.constructor?.name ?? "?");
    for (const [key, d] of now) {
      const was = baseline.builtins[i].get(key);
      if (!was || was.some((v, j) => !Object.is(v, d[j]))) return `changed ${name}.${String(key)}`;
    }
    for (const key of baseline.builtins[i].keys()) {
      if (!now.has(key)) return `deleted ${name}.${String(key)}`;
    }
  }
  for (const [kind, n] of resources()) {
    if (n > (baseline.resources.get(kind) ?? 0)) return `left a ${kind} running`;
  }
  return "";
}

class AssayTapeRunner {
  static inject = [];
  dirty = ""; // why this worker is not to be reused
  running = false;
  baseline = undefined;

  capabilities() {
    return { reloadEnvironment: true }; // every run loads the project's modules afresh
  }

  async init() {
    // between runs, what the last one left behind may still throw: the worker is not reused
    process.on("uncaughtException", (e) => this.running || (this.dirty ||= `threw: ${e}`));
    process.on("unhandledRejection", (e) => this.running || (this.dirty ||= `rejected: ${e}`));
    // a first run loads tape and the packages, and lets node define its lazy globals, so that
    // what each mutant's run leaves is compared with a clean run's
    await this.runFiles();
    this.baseline = { builtins: WATCHED.map(own), resources: resources() };
    this.dirty = "";
  }

  async dryRun({ coverageAnalysis }) {
    const ns = (globalThis[NS] ??= {});
    ns.activeMutant = undefined;
    ns.mutantCoverage = { static: {}, perTest: {} };
    const outcome = await this.runFiles(undefined, coverageAnalysis === "perTest");
    if (outcome.error) return { status: "error", errorMessage: outcome.error };
    const tests = outcome.tests.map(({ id, file, ms }) => ({
      id,
      name: id,
      fileName: file,
      timeSpentMs: ms,
      ...(outcome.failed.has(id)
        ? { status: 1, failureMessage: outcome.failed.get(id) }
        : { status: 0 }),
    }));
    return {
      status: "complete",
      tests,
      ...(coverageAnalysis === "off" ? {} : { mutantCoverage: ns.mutantCoverage }),
    };
  }

  async mutantRun({ activeMutant, hitLimit, testFilter }) {
    if (this.dirty) {
      process.stderr.write(`assay-tape: a fresh worker, this one is dirty: ${this.dirty}\n`);
      process.exit(3); // Stryker restarts the worker and runs this mutant again
    }
    const ns = (globalThis[NS] ??= {});
    ns.activeMutant = activeMutant.id;
    ns.hitLimit = hitLimit;
    ns.hitCount = hitLimit ? 0 : undefined;
    let outcome;
    try {
      outcome = await this.runFiles(testFilter && new Set(testFilter), false);
    } finally {
      ns.activeMutant = undefined;
    }
    if (ns.hitCount !== undefined && hitLimit !== undefined && ns.hitCount > hitLimit) {
      this.dirty ||= "hit limit"; // the loop's test may have left its harness mid-way
      return { status: "timeout", reason: `Hit limit reached (${ns.hitCount}/${hitLimit})` };
    }
    const nrOfTests = outcome.tests.filter((t) => !t.skipped).length;
    if (outcome.error || outcome.failed.size) {
      const [first] = outcome.failed.values();
      return {
        status: "killed",
        killedBy: [...outcome.failed.keys()],
        failureMessage: outcome.error || first,
        nrOfTests,
      };
    }
    return { status: "survived", nrOfTests };
  }

  /** Runs the test files one after the other, each on tape's fresh default harness; of their
   * top-level tests, those `only` names (all without it). `perTest`: Stryker's coverage per test. */
  async runFiles(only, perTest) {
    const cache = createRequire(import.meta.url).cache;
    for (const key of Object.keys(cache)) if (!key.includes("/node_modules/")) delete cache[key];
    const outcome = { failed: new Map(), error: "", tests: [], ids: new Set(), current: "" };
    globalThis[NS] ??= {};
    this.running = true;
    try {
      for (const file of config.files) {
        await this.runFile(file, outcome, only, perTest);
        if (outcome.error) break;
      }
    } finally {
      globalThis[NS].currentTestId = undefined;
      await new Promise((resolve) => setImmediate(resolve)); // what the run queued runs now
      this.running = false;
    }
    if (!this.dirty && this.baseline) this.dirty = leftover(this.baseline);
    return outcome;
  }

  runFile(file, outcome, only, perTest) {
    const require = createRequire(file);
    const tapePath = require.resolve("tape");
    delete require.cache[tapePath]; // its default harness is a singleton of its entry module
    const tape = require(tapePath);
    return new Promise((resolve) => {
      let done = false;
      const finish = (error) => {
        if (done) return;
        done = true;
        process.off("uncaughtException", crash);
        process.off("unhandledRejection", crash);
        process.exit = exit;
        if (error && outcome.current && !outcome.failed.has(outcome.current)) {
          outcome.failed.set(outcome.current, error); // the test running when it happened
        } else if (error) {
          outcome.error ||= error;
        }
        resolve();
      };
      // what would have ended a process: an exception or a rejection nothing handles, an exit
      const crash = (e) => finish(`uncaught: ${e?.stack ?? e}`);
      const exit = process.exit;
      process.exit = (code) => {
        this.dirty ||= `process.exit(${code})`;
        finish((code ?? process.exitCode ?? 0) !== 0 ? `process.exit(${code})` : "");
      };
      process.on("uncaughtException", crash);
      process.on("unhandledRejection", crash);
      const sink = new Writable({ objectMode: true, write: (_row, _enc, next) => next() });
      try {
        const harness = tape.getHarness({ exit: false, stream: sink, objectMode: true });
        harness.onFinish(() => finish(""));
        require(file);
        for (const t of harness._tests) this.watch(t, file, outcome, only, perTest);
        if (harness._tests.length === 0) finish("");
      } catch (e) {
        finish(`load: ${e?.stack ?? e}`);
      }
    });
  }

  /** A top-level test: its id (its name, made unique), skipped unless `only` has it, its
   * failures and its subtests' counted against it. */
  watch(t, file, outcome, only, perTest) {
    let id = t.name;
    for (let n = 2; outcome.ids.has(id); n++) id = `${t.name} (${n})`;
    outcome.ids.add(id);
    const entry = { id, file, ms: 0, skipped: false };
    outcome.tests.push(entry);
    if (only && !only.has(id)) {
      t._skip = true;
      entry.skipped = true;
      return;
    }
    let start = 0;
    t.once("prerun", () => {
      start = Date.now();
      outcome.current = id;
      if (perTest) globalThis[NS].currentTestId = id;
    });
    t.once("end", () => {
      entry.ms = Date.now() - start;
      outcome.current = "";
      if (perTest) globalThis[NS].currentTestId = undefined;
    });
    const results = (st) => {
      st.on("test", results);
      st.on("result", (r) => {
        if (typeof r === "string" || r.ok || r.todo || outcome.failed.has(id)) return;
        outcome.failed.set(id, `${r.name}: ${r.error?.message ?? r.operator ?? ""}`);
      });
    };
    results(t);
  }
}

export const strykerPlugins = [
  { kind: "TestRunner", name: "assay-tape", injectableClass: AssayTapeRunner },
];
