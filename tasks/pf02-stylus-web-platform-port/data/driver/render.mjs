// The grader's driver of stylus's JavaScript API (pf02). The case's argv
// copies it into the case's folder beside node_modules/stylus, a link to the
// built tree under test, so `import('stylus')` resolves the package as any
// consumer's import does: through its package.json (exports, main, type),
// whether the tree is CommonJS (State A) or ES modules (a port).
//
// node render.mjs MODE INPUT
//   case       INPUT is test/cases/NAME.styl: rendered with the options the
//              case's name implies (the rules of stylus's test/run.js), the
//              CSS written to stdout as render() returns it, byte for byte
//   sourcemap  INPUT is test/sourcemap/NAME.styl: rendered with a source
//              map (inline when NAME says so); the CSS, then the map as JSON
//   deps       INPUT is test/deps-resolver/NAME.styl: deps(), one a line
//   convert    INPUT is test/converter/NAME.css: convertCSS's Stylus
//
// Paths are relative to the tree that holds INPUT (the folder above its
// test/; the driver changes into it), so nothing recorded names where that
// tree sits. An error thrown by
// stylus is written to stderr as its name and message, exit status 1.
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';

const [mode, input] = process.argv.slice(2);
const abs = resolve(input);
const root = abs.slice(0, abs.lastIndexOf('/test/'));
const mod = await import('stylus');
const stylus = mod.default ?? mod;
process.chdir(root);

const rel = abs.slice(root.length + 1);
const name = basename(abs).replace(/\.(styl|css)$/, '');
const read = (p) => readFileSync(p, 'utf8');

function fail(err) {
  process.stderr.write(`${err && err.name}: ${err && err.message}\n`);
  process.exit(1);
}

try {
  switch (mode) {
    case 'case': {
      const style = stylus(read(rel))
        .set('filename', rel)
        .include('test/images')
        .include('test/cases/import.basic');
      if (name.includes('compress')) style.set('compress', true);
      if (name.includes('include')) style.set('include css', true);
      if (name.includes('prefix.')) style.set('prefix', 'prefix-');
      if (name.includes('hoist.')) style.set('hoist atrules', true);
      if (name.includes('resolver')) style.define('url', stylus.resolver());
      process.stdout.write(style.render());
      break;
    }
    case 'sourcemap': {
      const inline = name.includes('inline');
      const style = stylus(read(rel)).set('filename', rel)
        .set('sourcemap', { inline, sourceRoot: '/', basePath: 'test/sourcemap' });
      style.render((err, css) => {
        if (err) fail(err);
        process.stdout.write(css);
        process.stdout.write('\n/* sourcemap */\n' + JSON.stringify(style.sourcemap, null, 1) + '\n');
      });
      break;
    }
    case 'deps':
      process.stdout.write(stylus(read(rel)).set('filename', rel).deps().join('\n') + '\n');
      break;
    case 'convert':
      process.stdout.write(stylus.convertCSS(read(rel)));
      break;
    default:
      process.stderr.write(`render.mjs: unknown mode ${mode}\n`);
      process.exit(64);
  }
} catch (err) {
  fail(err);
}
