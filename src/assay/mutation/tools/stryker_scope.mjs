// assay's ignorer plugin for StrykerJS (`ignorers: ["assay-scope"]`): leaves out every AST node
// that lies wholly outside gate 4's scope, from V8's coverage of the candidate's run
// (`stryker_scope.py` writes `scope.json` beside this file). Such a node's mutants are reported
// `Ignored` with assay's reason and never run. A node that overlaps code in scope is kept.
import { readFileSync } from "node:fs";

const RUN = 1;
const data = JSON.parse(readFileSync(new URL("./scope.json", import.meta.url), "utf8"));

// per file and class: the segments' starts and ends, in file order
const files = new Map();
for (const [file, segments] of Object.entries(data.files)) {
  const byClass = new Map();
  for (const [start, end, cls] of segments) {
    if (!byClass.has(cls)) byClass.set(cls, { starts: [], ends: [] });
    byClass.get(cls).starts.push(start);
    byClass.get(cls).ends.push(end);
  }
  files.set(file, byClass);
}

/** Whether [start, end) overlaps a segment of `list` (sorted, disjoint). */
function overlaps(list, start, end) {
  if (!list) return false;
  let lo = 0;
  let hi = list.ends.length;
  while (lo < hi) { // the first segment ending after `start`
    const mid = (lo + hi) >> 1;
    if (list.ends[mid] <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo < list.ends.length && list.starts[lo] < Math.max(end, start + 1);
}

const ignorer = {
  shouldIgnore(path) {
    const byClass = files.get(path.hub?.file?.opts?.filename);
    const { start, end } = path.node;
    if (!byClass || start == null || end == null) return undefined;
    if (overlaps(byClass.get(RUN), start, end)) return undefined;
    for (const [cls, list] of byClass) {
      if (cls !== RUN && overlaps(list, start, end)) return data.reasons[cls];
    }
    return undefined;
  },
};

export const strykerPlugins = [{ kind: "Ignore", name: "assay-scope", value: ignorer }];
