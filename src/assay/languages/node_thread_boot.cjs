// Preloaded (`--require`) into each worker thread of node_plan.mjs before the test file: marks a
// call that a worker thread refuses but a process allows (process.chdir, umask(mask), setuid...),
// and a file that loaded node:test (its tests are `run()`'s to report), so that the run is redone
// in a process of its own.
"use strict";
const { workerData } = require("node:worker_threads");

const marks = new Int32Array(workerData.assayMarks);
for (const name of ["chdir", "umask", "setuid", "setgid", "seteuid", "setegid", "setgroups",
  "initgroups"]) {
  const original = process[name];
  if (typeof original !== "function") continue;
  process[name] = function (...args) {
    try {
      return original.apply(this, args);
    } catch (e) {
      if (e?.code === "ERR_WORKER_UNSUPPORTED_OPERATION") Atomics.store(marks, 0, 1);
      throw e;
    }
  };
}
process.on("exit", () => {
  if (process.moduleLoadList.some((m) => m.includes("internal/test_runner/")))
    Atomics.store(marks, 1, 1);
});
