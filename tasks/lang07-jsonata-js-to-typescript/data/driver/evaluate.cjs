// The grader's driver of jsonata's JavaScript API (lang07): one Node process
// per batch of cases, so a module runs a few dozen processes, not one per
// expression.
//
//   node evaluate.cjs BATCH
//
// The case's folder holds node_modules/jsonata, a link to the built tree
// under test (the case's argv makes it), and the package is loaded with
// require('jsonata') from that folder, as a consumer loads it: through its
// package.json's main, whatever the tree's layout. BATCH is a JSON file
// {"doc": NAME?, "cases": [CASE...]}; a case is
//
//   {"expr": STRING, "doc": NAME?, "input": JSON?, "bindings": {...}?,
//    "options": {...}?, "mode": MODE?, ...}
//
// with its input the named document of data/docs (doc) or the inline value
// (input; absent input and absent doc evaluate with no input at all).
// Bindings and assigned values may name a host function of the fixed
// vocabulary below as {"host": NAME}. Modes:
//
//   evaluate (default)  jsonata(expr, options).evaluate(input, bindings)
//   callback            the same, with a callback: what the callback got,
//                       and how the returned promise settled
//   assign              expr.assign(name, value) for each of "assign"'s
//                       pairs, then evaluate
//   register            expr.registerFunction(name, host, signature) for
//                       each of "register"'s entries, then evaluate
//   repeat              one compiled expression evaluated "times" times
//   ast                 the parse tree ast() returns (and errors() when
//                       options.recover is set)
//   surface             the package's public surface: what require gives
//                       and the methods of a compiled expression
//
// Each case prints one line: its number, then "ok" and the result, or
// "compile-error" (thrown by jsonata(expr)) / "error" (rejected by
// evaluate) and the error's code, position, token, value, value2, index and
// message, each present only when the error carries it. Values are written
// by enc below: JSON with undefined, -0, NaN and Infinity spelled out, keys
// in insertion order, a function as <function>.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const batchFile = process.argv[2];
const docsDir = path.join(__dirname, '..', 'docs');
const jsonata = require(require.resolve('jsonata', { paths: [process.cwd()] }));

function isFn(v) {
  return typeof v === 'function' || (v !== null && typeof v === 'object' && (v._jsonata_lambda === true || v._jsonata_function === true));
}

function enc(v, depth = 0) {
  if (depth > 64) return '<deep>';
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'number':
      if (Object.is(v, -0)) return '-0';
      return Number.isFinite(v) ? JSON.stringify(v) : String(v);
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return String(v);
    case 'bigint':
    case 'symbol':
      return `<${typeof v}>`;
    default:
  }
  if (isFn(v)) return '<function>';
  if (Array.isArray(v)) return '[' + v.map((x) => enc(x, depth + 1)).join(',') + ']';
  if (v instanceof Date) return `<Date ${v.toISOString()}>`;
  if (v instanceof RegExp) return `<RegExp ${v.source}/${v.flags}>`;
  if (typeof v.then === 'function') return '<promise>';
  return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ':' + enc(v[k], depth + 1)).join(',') + '}';
}

const errFields = ['code', 'position', 'token', 'value', 'value2', 'index'];
function encErr(e) {
  if (e === null || typeof e !== 'object') return enc(e);
  const parts = [];
  for (const f of errFields) {
    if (e[f] !== undefined) parts.push(`${f}=${enc(e[f])}`);
  }
  parts.push(`message=${enc(e.message)}`);
  return parts.join(' ');
}

// The host functions a case may bind, assign or register, by name.
function host(name) {
  let count = 0;
  const fns = {
    double: (x) => x * 2,
    asyncDouble: async (x) => x * 2,
    later: (x) => new Promise((resolve) => setTimeout(() => resolve(x), 1)),
    rejects: () => Promise.reject({ code: 'H0001', message: 'rejected by the host' }),
    focusInput: function () { return this.input; },
    focusLookup: function (name) { return this.environment.lookup(name); },
    join: (...args) => args.map((a) => JSON.stringify(a)).join('|'),
    arity: (...args) => args.length,
    throws: () => { throw new Error('thrown by the host'); },
    counter: () => ++count,
    identity: (x) => x,
    typeOf: (x) => (Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x),
  };
  if (!(name in fns)) throw new Error(`evaluate.cjs: no host function ${name}`);
  return fns[name];
}

function resolveValue(v) {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.host === 'string' && Object.keys(v).length === 1) return host(v.host);
  return v;
}

function bindingsOf(b) {
  if (b === undefined) return undefined;
  const out = {};
  for (const k of Object.keys(b)) out[k] = resolveValue(b[k]);
  return out;
}

const docs = new Map();
function doc(name) {
  if (!docs.has(name)) docs.set(name, fs.readFileSync(path.join(docsDir, name + '.json'), 'utf8'));
  return JSON.parse(docs.get(name));
}

function optionsOf(o) {
  if (o === undefined) return undefined;
  const out = { ...o };
  if (out.RegexEngine === 'caseless') {
    out.RegexEngine = class extends RegExp {
      constructor(re) { super(re, (re.flags || '').includes('i') ? re.flags : (re.flags || '') + 'i'); }
    };
  }
  return out;
}

async function run(c, batchDoc) {
  const mode = c.mode || 'evaluate';
  if (mode === 'surface') {
    const e = jsonata('$');
    const names = ['evaluate', 'assign', 'registerFunction', 'ast', 'errors'];
    return 'ok ' + enc({ export: typeof jsonata, methods: names.map((n) => `${n}:${typeof e[n]}`), evaluateReturns: enc(e.evaluate(1)), resolved: await e.evaluate(1) });
  }
  const hasInput = 'input' in c || 'doc' in c || batchDoc !== undefined;
  const input = 'input' in c ? c.input : c.doc !== undefined ? doc(c.doc) : batchDoc !== undefined ? doc(batchDoc) : undefined;
  let e;
  try {
    e = jsonata(c.expr, optionsOf(c.options));
  } catch (err) {
    return 'compile-error ' + encErr(err);
  }
  if (mode === 'ast') {
    let out = 'ok ' + enc(e.ast());
    if (c.options && c.options.recover) out += ' errors=' + enc(e.errors());
    return out;
  }
  for (const [k, v] of c.assign || []) e.assign(k, resolveValue(v));
  for (const r of c.register || []) e.registerFunction(r.name, host(r.host), r.signature);
  const b = bindingsOf(c.bindings);
  const once = async () => {
    try {
      const r = hasInput ? await e.evaluate(input, b) : await e.evaluate(undefined, b);
      return 'ok ' + enc(r);
    } catch (err) {
      return 'error ' + encErr(err);
    }
  };
  if (mode === 'callback') {
    const calls = [];
    let settled;
    try {
      const r = await e.evaluate(input, b, (err, res) => calls.push(`(${err === null ? 'null' : encErr(err)}, ${enc(res)})`));
      settled = 'resolved ' + enc(r);
    } catch (err) {
      settled = 'rejected ' + encErr(err);
    }
    return `callback ${calls.length ? calls.join(' ') : 'not called'}; promise ${settled}`;
  }
  if (mode === 'repeat') {
    const outs = [];
    for (let i = 0; i < (c.times || 2); i++) outs.push(await once());
    return outs.join(' ; ');
  }
  return once();
}

(async () => {
  const batch = JSON.parse(fs.readFileSync(batchFile, 'utf8'));
  let n = 0;
  for (const c of batch.cases) {
    n++;
    let line;
    try {
      line = await run(c, batch.doc);
    } catch (err) {
      line = 'driver-fault ' + encErr(err);
    }
    process.stdout.write(`${String(n).padStart(3, '0')} ${line}\n`);
  }
})();
