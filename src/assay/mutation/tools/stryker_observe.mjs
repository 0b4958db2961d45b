// assay's reporter plugin for StrykerJS at gate 4 with mocha and `node --test`: the observer
// (`stryker_observer.cjs`) on the survivors. Stryker hands its reporters the mutation report once
// every mutant has run and waits for their `wrapUp` before it puts the original files back
// (`inPlace`), so the copy still holds Stryker's instrumented code, every mutant behind its
// run-time switch: the observer reuses it, in a process of its own, on each survivor's covering
// tests (under mocha, mutants Stryker activates at load time, `static`, are left as they are).
// `observe.json` beside this file gives the runner, the project's mocha, the candidate files, the
// targets, where to write the verdicts and by when to end; `stryker_observe.py` reads them back.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const HERE = new URL(".", import.meta.url);
const CONFIG = JSON.parse(readFileSync(new URL("./observe.json", HERE), "utf8"));

class ObserveReporter {
  static inject = [];
  report = null;

  onMutationTestReportReady(report) {
    this.report = report;
  }

  async wrapUp() {
    const names = {};
    for (const entry of Object.values(this.report?.testFiles ?? {})) {
      for (const t of entry.tests ?? []) names[t.id] = t.name;
    }
    const survivors = [];
    for (const entry of Object.values(this.report?.files ?? {})) {
      for (const m of entry.mutants ?? []) {
        if (m.status !== "Survived") continue;
        // node --test: the file is one test (a new process per run: a static mutant is active
        // as the file loads); mocha's per-test runs switch mutants in a loaded process
        if (CONFIG.runner === "node") survivors.push({ id: m.id, tests: [CONFIG.whole] });
        else if (!m.static && m.coveredBy?.length) {
          survivors.push({ id: m.id, tests: m.coveredBy.map((t) => names[t] ?? t) });
        }
      }
    }
    const out = CONFIG.out;
    if (!survivors.length) {
      writeFileSync(out, JSON.stringify({ verdicts: {} }));
      return;
    }
    const plan = fileURLToPath(new URL("./observe-plan.json", HERE));
    writeFileSync(plan, JSON.stringify({ ...CONFIG, survivors }));
    const started = process.hrtime.bigint();
    const limit = Math.max(1, CONFIG.deadline - Date.now() / 1000);
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [fileURLToPath(new URL("./observer.cjs", HERE)), plan], {
        stdio: ["ignore", "ignore", "pipe"],
        detached: true, // its own process group: the runs it starts stop with it
      });
      let said = "";
      child.stderr.on("data", (d) => (said = (said + d).slice(-2000)));
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
      }, limit * 1000);
      child.on("exit", (c, signal) => {
        clearTimeout(timer);
        resolve(signal ? `stopped after ${Math.round(limit)} s (gate 4's limit)` : c === 0 ? 0 : `exit ${c}: ${said.trim()}`);
      });
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    let data = { verdicts: {} };
    try {
      data = JSON.parse(readFileSync(out, "utf8"));
    } catch {}
    if (code !== 0) data.error = `${code}${data.error ? `; ${data.error}` : ""}`;
    writeFileSync(out, JSON.stringify({ ...data, survivors: survivors.length, seconds }));
  }
}

export const strykerPlugins = [{ kind: "Reporter", name: "assay-observe", injectableClass: ObserveReporter }];
