// The grader's check of jsonata's declared type surface (lang07): the
// TypeScript consumers of data/types, uses that must compile (p*.ts) and
// misuses that must not (n*.ts), compiled in one tsc run against the
// declarations the package under test publishes (package.json's typings or
// types), as a consumer's `import jsonata = require('jsonata')` finds them.
//
//   node types.cjs CONSUMERS
//
// The case's folder holds node_modules/jsonata, a link to the built tree
// under test (the case's argv makes it). The consumers are copied beside it
// with a tsconfig.json (strict, CommonJS, no @types), and tsc (the image's,
// on PATH) type-checks them without emitting. One line per consumer: "ok",
// or the lines of that consumer tsc reports errors on; then how many errors
// tsc reports outside the consumers (in the declarations themselves).
// Diagnostic codes and texts are not compared: a generated declaration may
// word a type differently and still describe the same API.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const src = process.argv[2];
const names = fs.readdirSync(src).filter((n) => n.endsWith('.ts')).sort();
fs.mkdirSync('consumers');
for (const n of names) fs.copyFileSync(path.join(src, n), path.join('consumers', n));
fs.writeFileSync('tsconfig.json', JSON.stringify({
  compilerOptions: {
    strict: true, module: 'commonjs', moduleResolution: 'node10', target: 'es2020', lib: ['es2020'],
    types: [], noEmit: true, skipLibCheck: false, esModuleInterop: false,
  },
  files: names.map((n) => 'consumers/' + n),
}, null, 1));
const r = spawnSync('tsc', ['-p', 'tsconfig.json', '--pretty', 'false'], { encoding: 'utf8' });
if (r.error) {
  process.stderr.write(`types.cjs: cannot run tsc: ${r.error.message}\n`);
  process.exit(70);
}
const byFile = new Map(names.map((n) => [n, new Set()]));
let outside = 0;
for (const line of (r.stdout + r.stderr).split('\n')) {
  const m = /^(.+?)\((\d+),\d+\): error TS\d+:/.exec(line);
  if (!m) {
    if (/error TS\d+:/.test(line)) outside++;
    continue;
  }
  const file = m[1].replace(/\\/g, '/');
  const base = file.startsWith('consumers/') ? file.slice('consumers/'.length) : null;
  if (base !== null && byFile.has(base)) byFile.get(base).add(Number(m[2]));
  else outside++;
}
for (const n of names) {
  const lines = [...byFile.get(n)].sort((a, b) => a - b);
  process.stdout.write(`${n}: ${lines.length ? 'errors at line ' + lines.join(', ') : 'ok'}\n`);
}
process.stdout.write(`errors outside the consumers: ${outside}\n`);
