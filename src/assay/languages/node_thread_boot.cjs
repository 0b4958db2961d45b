// Preloaded (`--require`) into each worker thread of node_plan.mjs before the test file: marks a
// call that a worker thread refuses but a process allows (process.chdir, umask(mask), setuid...),
// so that the run is redone in a process of its own instead of failing for the thread.
"use strict";
const { workerData } = require("node:worker_threads");

const refused = new Int32Array(workerData.assayRefused);
for (const name of ["chdir", "umask", "setuid", "setgid", "seteuid", "setegid", "setgroups",
  "initgroups"]) {
  const original = process[name];
  if (typeof original !== "function") continue;
  process[name] = function (...args) {
    try {
      return original.apply(this, args);
    } catch (e) {
      if (e?.code === "ERR_WORKER_UNSUPPORTED_OPERATION") Atomics.store(refused, 0, 1);
      throw e;
    }
  };
}
