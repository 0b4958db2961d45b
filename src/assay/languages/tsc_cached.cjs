// The project's tsc with a V8 code cache of TypeScript's compiler (`tsc_cache.py` says why and
// who may write one). Run by gate 1 in the sandbox as
//     node tsc_cached.cjs TSC CACHE_IN CACHE_OUT ARGS...
// TSC: the project's `tsc` (its node_modules/.bin link); CACHE_IN: a cache to hand V8 ("-": none);
// CACHE_OUT: where to write a cache made at exit when none was taken ("-": nowhere). The first
// module of over a megabyte TypeScript loads (`lib/_tsc.js` of TypeScript 5.7+, `lib/tsc.js`
// before) is compiled as node compiles a module, as a `vm.Script` given the cache; a rejected or
// unreadable cache compiles as without one. V8 checks a cache's version, flags and source length.
"use strict";
const fs = require("node:fs");
const Module = require("node:module");
const vm = require("node:vm");

const [node, , tsc, cacheIn, cacheOut, tsModule, tsOut, ...args] = process.argv;
process.argv = [node, tsc, ...args];
const compile = Module.prototype._compile;
let script = null;
let taken = false;

Module.prototype._compile = function (content, filename) {
  if (script !== null || content.length < 1000000) return compile.call(this, content, filename);
  let cachedData;
  try {
    cachedData = cacheIn === "-" ? undefined : fs.readFileSync(cacheIn);
  } catch {
    cachedData = undefined;
  }
  try {
    script = new vm.Script(Module.wrap(content), { filename, cachedData });
  } catch {
    script = undefined; // not taken again: node's own compile, as without this loader
    return compile.call(this, content, filename);
  }
  taken = cachedData !== undefined && !script.cachedDataRejected;
  const run = script.runInThisContext({ displayErrors: true });
  const require = Module.createRequire(filename);
  return run.call(this.exports, this.exports, require, this, filename, require("node:path").dirname(filename));
};

process.on("exit", () => {
  try {
    if (script && !taken && cacheOut !== "-")
      fs.writeFileSync(cacheOut, script.createCachedData(), { flag: "wx", mode: 0o644 });
  } catch {
    // the path exists or cannot be written: no cache, as before
  }
  try {
    if (tsModule !== "-" && tsOut !== "-") require("./typescript_cached.cjs").make(tsModule, tsOut);
  } catch {
    // no TypeScript module cache, as before
  }
});

require(fs.realpathSync(tsc));
