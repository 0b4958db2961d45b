// assay's plan for one `node --test` file in one node process (languages/js_plans.py writes the
// plan): `node node_plan.mjs PLAN.json`, PLAN as for vitest_plan.mjs without "vitest" and "seed"
// (no random order before Node 22). Each run is what `node --test [--test-name-pattern=P]
// --test-reporter=junit FILE` does, through node:test's own `run()`: the file in a fresh child
// process, its JUnit XML written to "out"; the plan shares the parent's start-up.
// A file that holds no node:test test (a tape file, a script of asserts) is one test, passed when
// its process exits 0: once its first run passed, the runs after it go to a worker thread each
// (`inThread`: a fresh isolate, module registry, globals and env copy, no process start), and
// write the report `node --test` gives for its exit code.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { run } from "node:test";
import { junit } from "node:test/reporters";
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

const BOOT = fileURLToPath(new URL("./node_thread_boot.cjs", import.meta.url));
const FILE = resolve(plan.file); // named as `node --test` names it
// node's own limit on the main thread's stack (V8's 984 KB) plus what a worker keeps in reserve
// (192 KB): a recursion that overflows in a process overflows in the thread too
const STACK_MB = (984 + 192) / 1024;
let threads = true; // false once a thread refused what a process allows: a process per run after
let firstXml = null;

// the exit status of one run of the file in a worker thread, null when the thread refused a call
// a process allows (the run is redone in a process). It hangs as the process would: runPlan's
// deadline ends the plan, and gate 3 redoes the step a process per run.
function inThread() {
  const refused = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(FILE, {
    argv: [],
    env: { ...process.env, NODE_TEST_CONTEXT: "child-v8" }, // what run() gives its child
    execArgv: [...process.execArgv, "--require", BOOT],
    workerData: { assayRefused: refused.buffer },
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
      const mine = Atomics.load(refused, 0) || String(error?.code).startsWith("ERR_WORKER");
      done(mine ? null : error && code === 0 ? 1 : code);
    });
  });
}

// the JUnit report `node --test` writes for the file, from the first run's (a pass)
function reportOf(code) {
  if (code === 0) return firstXml;
  const failure =
    `<testcase name="$1" time="$2" classname="test" failure="test failed">\n\t\t` +
    `<failure type="testCodeFailure" message="test failed">\n[Error: test failed] { code: ` +
    `'ERR_TEST_FAILURE', failureType: 'testCodeFailure', cause: 'test failed', exitCode: ${code}, ` +
    `signal: null }\n\t\t</failure>\n\t</testcase>`;
  return firstXml
    .replace(/<testcase name="([^"]*)" time="([^"]*)" classname="test"\/>/, failure)
    .replace("<!-- pass 1 -->", "<!-- pass 0 -->")
    .replace("<!-- fail 0 -->", "<!-- fail 1 -->");
}

const fileAlone = (found) => found.length === 1 && found[0][0] === FILE;

const runOne = async (step) => {
  if (threads && first !== null && fileAlone(first) && first[0][1] === "passed") {
    const code = await inThread();
    if (code !== null) {
      const xml = reportOf(code);
      writeFileSync(step.out, xml);
      return { failed: code !== 0, statuses: new Map(tests(xml)) };
    }
    threads = false;
  }
  const options = { files: [FILE] };
  if (step.pattern) options.testNamePatterns = [step.pattern];
  let xml = "";
  for await (const chunk of run(options).compose(junit)) xml += chunk;
  writeFileSync(step.out, xml);
  const found = tests(xml);
  if (first === null) [first, firstXml] = [found, xml];
  return { failed: found.some(([, s]) => s === "failed"), statuses: new Map(found) };
};

const passing = () => [...new Set(first.filter(([, s]) => s === "passed").map(([n]) => n))];
const pattern = (name) => jsRegex(name.split(" > ").at(-1));
await runPlan(plan, runOne, passing, pattern);
process.exit(0);
