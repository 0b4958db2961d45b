// assay's checker plugin for StrykerJS at gate 4 (vitest, jest, mocha): the sample of Python's gate 4
// (`mutation.sample`, `_assay_sandbox/mutation/plan.py`'s `sample`). Stryker hands its checkers
// the mutants it is about to run, after the dry run's per-test coverage took out those no test
// runs and its ignorers the rest: those are the file's scope. At most `size` of them run: one per
// line first, then a second per line, and so on, lines and mutants in an order fixed by their
// file, line and text, so the same code gives the same sample on every run. The others are
// reported `CompileError` with assay's reason, never run; `stryker.py` reads them back as not in
// the sample. router's test/route.js ran 492 mutants past gate 4's 600 s. `sample.json` beside
// this file gives `size` and `reason`.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

const CONFIG = JSON.parse(readFileSync(new URL("./sample.json", import.meta.url), "utf8"));

function key(mutant) {
  const { start, end } = mutant.location;
  const text = `${mutant.fileName}:${start.line}:${start.column}:${end.line}:${end.column}:` +
    `${mutant.mutatorName}:${mutant.replacement}`;
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** The ids of `mutants` in the order the sample draws them. */
export function drawn(mutants) {
  const lines = new Map();
  for (const m of [...mutants].sort((a, b) => (key(a) < key(b) ? -1 : 1))) {
    const line = `${m.fileName}:${m.location.start.line}`;
    if (!lines.has(line)) lines.set(line, []);
    lines.get(line).push(m);
  }
  const rounds = [...lines.values()].sort((a, b) => (key(a[0]) < key(b[0]) ? -1 : 1));
  const chosen = [];
  for (let depth = 0; chosen.length < mutants.length; depth++) {
    for (const ms of rounds) if (depth < ms.length) chosen.push(ms[depth].id);
  }
  return chosen;
}

class SampleChecker {
  static inject = [];
  chosen = new Set();
  taken = 0;

  async init() {}

  /** One group of all the mutants at once: the sample is drawn over those a test covers. Stryker
   * checks before it sets the uncovered ones apart (NoCoverage: out of gate 4's scope), so they
   * pass here: drawn among them, router's sample ran 63 mutants of 100. */
  async group(mutants) {
    const covered = mutants.filter((m) => m.static || (m.coveredBy?.length ?? 0) > 0);
    for (const m of mutants) if (!covered.includes(m)) this.chosen.add(m.id);
    const left = Math.max(CONFIG.size - this.taken, 0);
    for (const id of drawn(covered).slice(0, left)) this.chosen.add(id);
    this.taken += Math.min(left, covered.length);
    return [mutants.map((m) => m.id)];
  }

  async check(mutants) {
    const out = {};
    for (const m of mutants) {
      out[m.id] = this.chosen.has(m.id)
        ? { status: "passed" }
        : { status: "compileError", reason: CONFIG.reason };
    }
    return out;
  }
}

export const strykerPlugins = [{ kind: "Checker", name: "assay-sample", injectableClass: SampleChecker }];
