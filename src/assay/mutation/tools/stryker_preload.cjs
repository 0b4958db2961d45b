// The membrane (`stryker_membrane.cjs`) preloaded into a `node --test` run of gate 4's observer
// (`stryker_observer.cjs`, `NODE_OPTIONS=--require`): the process is one test from its start; at
// its exit, what it observed goes to `ASSAY_OBSERVE_DIR` (a process that called nothing of the
// project, node's test orchestrator, writes nothing).
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const membrane = require("./stryker_membrane.cjs");

membrane.install(JSON.parse(process.env.ASSAY_OBSERVE_TARGETS || "[]"));
membrane.begin();
process.on("exit", () => {
  const calls = membrane.end();
  if (calls !== null && calls.length === 0) return;
  const name = `${String(process.hrtime.bigint()).padStart(24, "0")}-${process.pid}.json`;
  fs.writeFileSync(path.join(process.env.ASSAY_OBSERVE_DIR, name), JSON.stringify({ calls }));
});
