// The grader's command-line driver for fw02.
//
//   node cli.mjs BUILD ARG...
//
// Runs the program package.json's bin names, through a link called
// json-server in the case's folder (so the usage line names the command,
// not a file of the tree), with ARG..., and passes on its standard output,
// standard error and exit status.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

const [build, ...args] = process.argv.slice(2)
const pkg = JSON.parse(fs.readFileSync(path.join(build, 'package.json'), 'utf8'))
const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin || {})['json-server']
if (!bin) { console.log('package.json names no json-server bin'); process.exit(3) }
fs.symlinkSync(path.resolve(build, bin), 'json-server')
const env = Object.assign({}, process.env)
delete env.NODE_ENV
const r = spawnSync(process.execPath, ['json-server', ...args], { env, timeout: 90000 })
process.stdout.write(r.stdout || '')
process.stderr.write(r.stderr || '')
process.exitCode = r.status === null ? 3 : r.status
