// Gate 4's observer for JavaScript (`stryker_observer.cjs` drives it): what crosses from the
// project's code to the test's side, fingerprinted, as Python's `_assay_sandbox/mutation/observe.py`.
// A membrane of Proxies: what a target module exports to a test-side `require` is wrapped, and so
// is what its functions return; a call through the membrane from the test's side (no project call
// running below it) is an observation point: its result (a promise: what it settles to), the
// exception it throws (type and message), its arguments and `this`. A function the test hands in
// (as an argument, in an array or in an options object) is wrapped too: the project calling back
// into the test gives it arguments, and those are observed. An object is fingerprinted when the
// test first receives or hands it, by reference after that, and again at the test's end (its
// state after the calls: a response the project writes later). Values are fingerprinted by content
// into leaves (path -> text): objects by constructor and own data properties (getters never run),
// arrays by items, Map and Set by entries, bounded in depth, items and leaves, never throwing, no
// addresses.
"use strict";

const Module = require("node:module");
const path = require("node:path");

const MAX_DEPTH = 4;
const MAX_LEAVES = 400; // of one value
const MAX_ITEMS = 100; // of one container (its length always counts), as Python's
const MAX_OBJECTS = 50; // objects one test follows (fingerprinted once, then by reference)
// observations of one test: past them the test is not observed (its survivors stay counted)
const MAX_CALLS = 20000;
const MAX_TEST_LEAVES = 100000; // of one test's observations (~0.5 s of fingerprinting)
// objects whose methods need their own internal slots, or that node's internals read as they are:
// handed to the test as they are (not observed further)
const SLOTTED = [Map, Set, WeakMap, WeakSet, Date, RegExp, Promise, Error, ArrayBuffer, DataView];
const OPAQUE = new Set(["Socket", "Server", "TLSSocket", "Agent", "Timeout", "Immediate", "HTTPParser"]);

const state = {
  depth: 0, // > 0 while project code the test called is running
  current: null, // the running test's record: {calls, objects, spent, over}
  targets: new Set(),
};
const rawOf = new WeakMap(); // proxy -> the project's value
const proxyOf = new WeakMap(); // the project's value -> its proxy
const callbackOf = new WeakMap(); // a test function -> its wrapper
const testFnOf = new WeakMap(); // a wrapper -> the test function
const nativeCache = new WeakMap();
const fromTest = new WeakSet(); // objects the test handed in: its own again when they come back

function isNative(fn) {
  let known = nativeCache.get(fn);
  if (known === undefined) {
    try {
      known = Function.prototype.toString.call(fn).includes("[native code]");
    } catch {
      known = true;
    }
    nativeCache.set(fn, known);
  }
  return known;
}

function slotted(v) {
  return SLOTTED.some((C) => v instanceof C) || ArrayBuffer.isView(v);
}

/** The project's value `v` as the test receives it: wrapped, so its use is observed. */
function out(v, name) {
  if (typeof v !== "function" && (typeof v !== "object" || v === null)) return v;
  if (rawOf.has(v)) return v;
  if (testFnOf.has(v)) return testFnOf.get(v); // the test's own function, handed back
  if (fromTest.has(v)) return v; // the test's own object (`assert.strictEqual(f(x), x)`)
  if (typeof v === "function" ? isNative(v) : slotted(v)) return v;
  const known = proxyOf.get(v);
  if (known) return known;
  const proxy = new Proxy(v, {
    get(t, k) {
      const value = Reflect.get(t, k);
      if (k === "prototype" || typeof k === "symbol") return value; // instanceof, iterators
      const d = Object.getOwnPropertyDescriptor(t, k);
      if (d && !d.configurable && (d.writable === false || (d.get && !d.set))) return value;
      return out(value, `${name}.${k}`);
    },
    set(t, k, value) {
      return Reflect.set(t, k, raw(value));
    },
    apply(t, self, args) {
      return call(t, name, args, (a) => Reflect.apply(t, raw(self), a), self);
    },
    construct(t, args, newTarget) {
      const target = newTarget === proxy ? t : raw(newTarget);
      return call(t, `new ${name}`, args, (a) => Reflect.construct(t, a, target), undefined);
    },
  });
  rawOf.set(proxy, v);
  proxyOf.set(v, proxy);
  return proxy;
}

function raw(v) {
  return (v !== null && (typeof v === "object" || typeof v === "function") && rawOf.get(v)) || v;
}

/** A value the test hands to the project: the project's own values unwrapped, the test's
 * functions wrapped so that calls back into the test are observed: given as they are, inside an
 * array (a copy), or as a property of a plain object (an options bag: replaced in it). */
function handIn(v) {
  if (typeof v === "function") {
    if (rawOf.has(v)) return rawOf.get(v);
    return callback(v);
  }
  if (v === null || typeof v !== "object" || rawOf.has(v)) return raw(v);
  if (Array.isArray(v)) {
    if (!v.some((x) => typeof x === "function")) return fromTest.add(v), v;
    return v.map((x) => (typeof x === "function" ? handIn(x) : raw(x)));
  }
  fromTest.add(v);
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) {
    for (const [key, d] of Object.entries(Object.getOwnPropertyDescriptors(v))) {
      if (typeof d.value === "function" && d.writable && d.configurable && !rawOf.has(d.value)) {
        v[key] = callback(d.value);
      }
    }
  }
  return v;
}

function callback(fn) {
  let wrapper = callbackOf.get(fn);
  if (wrapper) return wrapper;
  wrapper = new Proxy(fn, {
    apply(t, self, args) {
      record("callback", fn.name || "<anonymous>", () => ({ args: each(args) }));
      const below = state.depth;
      state.depth = 0; // the test's code runs: its calls into the project are observed
      try {
        return Reflect.apply(t, self, args);
      } finally {
        state.depth = below;
      }
    },
  });
  callbackOf.set(fn, wrapper);
  testFnOf.set(wrapper, fn);
  return wrapper;
}

/** Whether the running test still takes observations (a test past MAX_CALLS takes none). */
function taking() {
  const test = state.current;
  if (!test || test.over) return false;
  if (test.calls.length < MAX_CALLS && test.spent < MAX_TEST_LEAVES) return true;
  test.over = true;
  test.calls = [];
  return false;
}

/** The fingerprint of a value the running test receives or hands in: an object it already
 * follows is a reference (its state is taken again at the test's end), else its leaves, and it is
 * followed from then on. router's test of 6,000 handlers on one route got the route back from each
 * `route.all`: fingerprinted whole each time, the test took a minute. */
function known(v) {
  const test = state.current;
  const r = raw(v !== null && typeof v === "function" ? testFnOf.get(v) || v : v);
  if (r !== null && typeof r === "object") {
    const k = test.objects.get(r);
    if (k !== undefined) return [["", `ref:${k}`]];
    if (test.objects.size < MAX_OBJECTS) test.objects.set(r, test.objects.size);
  }
  return leaves(r);
}

function each(values) {
  return values.flatMap((v, i) => known(v).map(([at, text]) => [`.${i}${at}`, text]));
}

function record(kind, name, facts) {
  if (!taking()) return;
  const taken = facts();
  for (const value of Object.values(taken)) state.current.spent += value.length;
  state.current.calls.push({ kind, name, ...taken });
}

/** One call through the membrane: observed when it comes from the test's side. */
function call(t, name, args, run, self) {
  if (state.depth > 0) return run(args.map(raw)); // the project calling its own code
  const given = args.map(handIn);
  const test = state.current;
  if (!taking()) return out(run(given), name); // outside a test (the file's top level), or over
  state.depth++;
  let result;
  try {
    result = run(given);
  } catch (err) {
    state.depth--;
    record("call", name, () => ({ threw: leaves(err), args: each(given), self: known(self) }));
    throw err;
  }
  state.depth--;
  record("call", name, () => ({ self: known(self), args: each(given), returned: known(result) }));
  if (result instanceof Promise) {
    return result.then(
      (v) => {
        if (state.current === test) record("resolved", name, () => ({ value: known(v) }));
        return out(v, name);
      },
      (e) => {
        if (state.current === test) record("rejected", name, () => ({ value: leaves(e) }));
        throw e;
      },
    );
  }
  return out(result, name);
}

function typeName(v) {
  try {
    const proto = Object.getPrototypeOf(v);
    return (proto && proto.constructor && proto.constructor.name) || "Object";
  } catch {
    return "?";
  }
}

function scalar(v) {
  switch (typeof v) {
    case "string":
      return `s:${v.length > 2000 ? `${v.slice(0, 2000)}...${v.length}` : v}`;
    case "number":
      return `n:${Object.is(v, -0) ? "-0" : String(v)}`;
    case "bigint":
      return `b:${v}`;
    case "boolean":
      return `t:${v}`;
    case "undefined":
      return "u";
    case "symbol":
      return `y:${v.description}`;
    case "function":
      return `f:${v.name}`;
    default:
      return null;
  }
}

/** The fingerprint of `value`: its leaves, path -> text, breadth first, bounded. */
function leaves(value) {
  const out = [];
  const seen = new Map();
  const queue = [["", value, 0]];
  let next = 0;
  try {
    while (next < queue.length && out.length < MAX_LEAVES) {
      const [at, v0, depth] = queue[next++];
      const v = raw(testFnOf.get(v0) || v0);
      if (v === null) {
        out.push([at, "null"]);
        continue;
      }
      const s = scalar(v);
      if (s !== null) {
        out.push([at, s]);
        continue;
      }
      if (seen.has(v)) {
        out.push([at, `ref:${seen.get(v)}`]);
        continue;
      }
      seen.set(v, at);
      const type = typeName(v);
      if (depth >= MAX_DEPTH || OPAQUE.has(type)) {
        out.push([at, `o:${type}`]);
        continue;
      }
      if (v instanceof Error) {
        out.push([at, `e:${type}:${String(v.message)}`]);
      } else if (v instanceof Date) {
        out.push([at, `d:${v.getTime()}`]);
        continue;
      } else if (v instanceof RegExp) {
        out.push([at, `r:${String(v)}`]);
        continue;
      } else if (ArrayBuffer.isView(v)) {
        out.push([at, `v:${type}:${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64").slice(0, 4000)}`]);
        continue;
      } else if (v instanceof Promise) {
        out.push([at, "p"]);
        continue;
      } else {
        out.push([at, `o:${type}`]);
      }
      if (v instanceof Map) {
        out.push([`${at}#`, String(v.size)]);
        let i = 0;
        for (const [k, x] of v) {
          if (i++ >= MAX_ITEMS || queue.length > MAX_LEAVES) break;
          queue.push([`${at}<${scalar(k) ?? i}>`, x, depth + 1]);
        }
        continue;
      }
      if (v instanceof Set) {
        const items = [...v].slice(0, MAX_ITEMS).map((x) => scalar(x) ?? `o:${typeName(x)}`).sort();
        out.push([`${at}{}`, `${v.size}:${items.join("\u001f").slice(0, 4000)}`]);
        continue;
      }
      const keys = Object.getOwnPropertyNames(v);
      if (keys.length > MAX_ITEMS) out.push([`${at}#`, String(keys.length)]);
      for (const key of keys.slice(0, MAX_ITEMS)) {
        if (typeof v === "function" && (key === "prototype" || key === "caller" || key === "arguments")) continue;
        const d = Object.getOwnPropertyDescriptor(v, key);
        if (!d || !("value" in d)) continue; // a getter is never run
        if (queue.length > MAX_LEAVES) break; // each entry gives a leaf: no more would be read
        queue.push([`${at}.${key}`, d.value, depth + 1]);
      }
    }
  } catch (err) {
    out.push(["!", `x:${typeName(err)}`]);
  }
  if (next < queue.length || queue.length > MAX_LEAVES) out.push(["...", "cut"]);
  return out;
}

/** Wraps what a test-side `require` gets from a target module (CommonJS). */
function install(targets) {
  for (const t of targets) state.targets.add(path.resolve(t));
  const original = Module.prototype.require;
  Module.prototype.require = function require(id) {
    const exported = original.apply(this, arguments);
    if (state.targets.has(this.filename)) return exported; // the project's own require
    let file;
    try {
      file = Module._resolveFilename(id, this);
    } catch {
      return exported;
    }
    return state.targets.has(file) ? out(exported, path.basename(file)) : exported;
  };
}

/** Starts the record of one test. */
function begin() {
  state.depth = 0;
  state.current = { calls: [], objects: new Map(), spent: 0, over: false };
}

/** Ends the running test's record: its calls, then its handed-in objects' final state; null
 * when it took too many to keep. */
function end() {
  const test = state.current;
  state.current = null;
  state.depth = 0;
  if (!test || test.over) return null;
  for (const [o, i] of test.objects) test.calls.push({ kind: "final", name: String(i), state: leaves(o) });
  return test.calls;
}

module.exports = { install, begin, end, leaves };
