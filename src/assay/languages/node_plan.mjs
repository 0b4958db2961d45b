// assay's plan for one `node --test` file in one node process (languages/js_plans.py writes the
// plan): `node node_plan.mjs PLAN.json`, PLAN as for vitest_plan.mjs without "vitest" and "seed"
// (no random order before Node 22). Each run is what `node --test [--test-name-pattern=P]
// --test-reporter=junit FILE` does, through node:test's own `run()`: the file in a fresh child
// process, its JUnit XML written to "out"; the plan shares the parent's start-up.
// A file that holds no node:test test (a tape file, a script of asserts) is one test under
// `node --test`, passed when its process exits 0: its runs go to a worker thread each (`inThread`:
// a fresh isolate, module registry, globals and env copy, no process start), and write the report
// `node --test` writes for that exit status. A file that names node:test, or whose thread loaded
// it, runs through `run()`.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
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
    // the file's own pseudo test is named by its absolute path in the scratch copy: assay names it
    // by the project-relative path (`plan.self`, as node_results.py reads the report)
    const named = () => unescape(/\bname="([^"]*)"/.exec(attrs)?.[1] ?? "");
    const title = () => (path.length === 0 && named() === FILE ? SELF : named());
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

const BOOT = fileURLToPath(new URL("./node_thread_boot.cjs", import.meta.url));
const FILE = resolve(plan.file); // named as `node --test` names it
const SELF = plan.self ?? FILE; // the name assay gives the file's own pseudo test
// node's own limit on the main thread's stack (V8's 984 KB) plus what a worker keeps in reserve
// (192 KB): a recursion that overflows in a process overflows in the thread too
const STACK_MB = (984 + 192) / 1024;
const NODE_TEST = /\bnode:test\b|\brequire\s*\(\s*["']test["']\s*\)|\bfrom\s*["']test["']/;
// false once a run is not a thread's to make: a process per run after
let threads = !NODE_TEST.test(readFileSync(FILE, "utf8"));

// the exit status of one run of the file in a worker thread; null when the thread refused a call
// a process allows, or loaded node:test (node_thread_boot.cjs): the run is redone in a process.
// It hangs as the process would: runPlan's deadline ends the plan, and gate 3 redoes the step a
// process per run.
function inThread() {
  const marks = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(FILE, {
    argv: [],
    env: { ...process.env, NODE_TEST_CONTEXT: "child-v8" }, // what run() gives its child
    execArgv: [...process.execArgv, "--require", BOOT],
    workerData: { assayMarks: marks.buffer },
    stdout: true,
    stderr: true,
    resourceLimits: { stackSizeMb: STACK_MB },
  });
  worker.stdout.resume(); // `node --test` keeps a file's output out of its report
  worker.stderr.resume();
  return new Promise((done) => {
    let error = null;
    worker.on("error", (e) => (error = e));
    worker.on("exit", (code) => {
      const refused = Atomics.load(marks, 0) || Atomics.load(marks, 1);
      if (refused || String(error?.code).startsWith("ERR_WORKER")) done(null);
      else done(error && !code ? 1 : code);
    });
  });
}

const XML = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

// the JUnit report `node --test` writes for the file when its process exits with `code`
function reportOf(code) {
  const name = FILE.replace(/[&<>"']/g, (c) => XML[c]);
  const testcase =
    code === 0
      ? `<testcase name="${name}" time="0" classname="test"/>`
      : `<testcase name="${name}" time="0" classname="test" failure="test failed">\n\t\t` +
        `<failure type="testCodeFailure" message="test failed">\n[Error: test failed] { code: ` +
        `'ERR_TEST_FAILURE', failureType: 'testCodeFailure', cause: 'test failed', exitCode: ` +
        `${code}, signal: null }\n\t\t</failure>\n\t</testcase>`;
  const counts = `<!-- tests 1 -->\n\t<!-- pass ${+!code} -->\n\t<!-- fail ${+!!code} -->`;
  const head = '<?xml version="1.0" encoding="utf-8"?>';
  return `${head}\n<testsuites>\n\t${testcase}\n\t${counts}\n</testsuites>\n`;
}

const fileAlone = (found) => found.length === 1 && found[0][0] === SELF;

// one run through node:test's `run()`: the file in a child process, as `node --test` runs it
async function inProcess(step) {
  const { run } = await import("node:test");
  const { junit } = await import("node:test/reporters");
  const options = { files: [FILE] };
  if (step.pattern) options.testNamePatterns = [step.pattern];
  let xml = "";
  for await (const chunk of run(options).compose(junit)) xml += chunk;
  return xml;
}

const runOne = async (step) => {
  let xml = null;
  if (threads && (first === null || (fileAlone(first) && first[0][1] === "passed"))) {
    const code = await inThread();
    if (code === null) threads = false;
    else xml = reportOf(code);
  }
  xml ??= await inProcess(step);
  writeFileSync(step.out, xml);
  const found = tests(xml);
  first ??= found;
  if (!fileAlone(first)) threads = false;
  return { failed: found.some(([, s]) => s === "failed"), statuses: new Map(found) };
};

const passing = () => [...new Set(first.filter(([, s]) => s === "passed").map(([n]) => n))];
// the file's own pseudo test alone is the file's run (no name pattern selects it)
const pattern = (name) => (name === SELF ? null : jsRegex(name.split(" > ").at(-1)));
await runPlan(plan, runOne, passing, pattern);
process.exit(0);
