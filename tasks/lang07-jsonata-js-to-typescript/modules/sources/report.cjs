// Reports what the tree is written in (lang07's sources module, weight 0: it
// decides nothing; stage 1's gates judge it). Reads the submitted tree
// ($SRB_REPO) and the tree stage 2 built (the ledger) as data and runs none
// of their code. Observations: the .ts and .js/.cjs/.mjs files outside
// node_modules (declaration files apart), tsconfig.json's strict,
// declaration and allowJs, the lines with // @ts-nocheck and with
// // @ts-ignore or // @ts-expect-error, the explicit any in the TypeScript
// source, and whether the declaration file package.json's typings (or
// types) names is in the submitted tree or only written by the build.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const repo = process.env.SRB_REPO;
const built = path.join(process.env.SRB_SUITE_WORK, 'ledger', 'default', 'tree');

function walk(dir, out = []) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

const files = walk(repo);
const ts = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
const js = files.filter((f) => /\.(c|m)?js$/.test(f));
let nocheck = 0;
let ignores = 0;
let anys = 0;
for (const f of ts) {
  const text = fs.readFileSync(f, 'utf8');
  nocheck += (text.match(/@ts-nocheck/g) || []).length;
  ignores += (text.match(/@ts-(ignore|expect-error)/g) || []).length;
  anys += (text.match(/(:|\bas|<|,|\|)\s*any\b/g) || []).length;
}

let tsconfig = null;
try {
  tsconfig = fs.readFileSync(path.join(repo, 'tsconfig.json'), 'utf8');
} catch {
  // absent: State A
}
function opt(name) {
  if (tsconfig === null) return 'absent';
  const m = new RegExp(`"${name}"\\s*:\\s*([a-z]+)`).exec(tsconfig);
  return m ? m[1] : 'unset';
}

let decl = 'package.json names none';
try {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
  const t = pkg.typings || pkg.types;
  if (typeof t === 'string') {
    const rel = path.normalize(t);
    if (fs.existsSync(path.join(repo, rel))) decl = `${rel} is in the submitted tree`;
    else if (fs.existsSync(path.join(built, rel))) decl = `${rel} is written by the build`;
    else decl = `${rel} is missing`;
  }
} catch (err) {
  decl = `package.json unreadable: ${err.message}`;
}

const check = (id, summary) => ({ id, verdict: 'pass', weight: 0, summary });
fs.writeFileSync(process.env.SRB_RESULT, JSON.stringify({
  checks: [
    check('files', `${ts.length} TypeScript and ${js.length} JavaScript files outside node_modules (declaration files apart)`),
    check('tsconfig', `tsconfig.json: strict ${opt('strict')}, declaration ${opt('declaration')}, allowJs ${opt('allowJs')}`),
    check('escapes', `${nocheck} // @ts-nocheck, ${ignores} // @ts-ignore or @ts-expect-error, ${anys} explicit any in the TypeScript source`),
    check('declarations', `the declaration file: ${decl}`),
  ],
}) + '\n');
