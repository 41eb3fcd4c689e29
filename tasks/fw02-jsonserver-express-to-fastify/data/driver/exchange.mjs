// The grader's HTTP driver for fw02 (one command case per scenario).
//
//   node exchange.mjs BUILD DATA SCENARIO
//
// BUILD is the built tree, DATA the task's data/ folder, SCENARIO a JSON
// file of data/exchanges: {"args": [...], "copy": [...], "requests": [...],
// "db": true}. The driver copies the fixture files the scenario names into
// the case's folder (its working directory) with their times pinned,
// starts the program package.json's bin names there on a free loopback
// port with the scenario's arguments, sends every request in order on its
// own connection, and prints a transcript: the status, the headers the
// contract covers (names lower-cased, sorted; Vary's members sorted), and
// the body (decompressed when the response is compressed). With
// "validators": false, ETag and Last-Modified are left out (files of the
// tree under test, whose mtimes are the build's). With "db" it
// prints the database file after the last request. Nothing here depends
// on which framework serves the requests.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import zlib from 'node:zlib'

const [build, data, scenarioFile] = process.argv.slice(2)
const scenario = JSON.parse(fs.readFileSync(scenarioFile, 'utf8'))
const EPOCH = 946684800 // every fixture file's mtime, so static validators are stable

// The headers the HTTP contract covers. Date, Connection, Keep-Alive,
// Transfer-Encoding, Content-Length and X-Powered-By are not compared.
const KEEP = new Set([
  'access-control-allow-credentials', 'access-control-allow-headers',
  'access-control-allow-methods', 'access-control-allow-origin',
  'access-control-expose-headers', 'access-control-max-age', 'allow',
  'cache-control', 'content-encoding', 'content-type', 'etag', 'expires',
  'last-modified', 'link', 'location', 'pragma', 'vary',
  'x-content-type-options', 'x-total-count',
])

function copyIn (rel) {
  const from = path.join(data, 'fixture', rel)
  const to = path.resolve(rel)
  fs.cpSync(from, to, { recursive: true })
  const pin = (p) => {
    if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) pin(path.join(p, e))
    fs.utimesSync(p, EPOCH, EPOCH)
  }
  pin(to)
}

// The scenario's own port: 20000 plus the FNV-1a hash of its file name
// modulo 30000 (the 23 scenarios get 23 distinct ports). A port the kernel
// hands out for listen(0) and the driver then closes can be handed to a
// case running beside this one before this server binds it; the two
// servers then race for it and one driver talks to the other's server
// (seen: a POST under --read-only answered 201). A fixed port per
// scenario cannot be taken by a sibling case, and when anything else
// holds it the driver says so instead of answering from another server.
function scenarioPort (file) {
  let h = 0x811c9dc5
  for (const b of Buffer.from(path.basename(file))) {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return 20000 + (h % 30000)
}

function portFree (port) {
  return new Promise((resolve) => {
    const s = net.createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

function binOf (tree) {
  const pkg = JSON.parse(fs.readFileSync(path.join(tree, 'package.json'), 'utf8'))
  const bin = typeof pkg.bin === 'string' ? pkg.bin : (pkg.bin || {})['json-server']
  if (!bin) throw new Error('package.json names no json-server bin')
  return path.resolve(tree, bin)
}

function send (port, r) {
  return new Promise((resolve) => {
    const headers = Object.assign({}, r.headers || {})
    let body = r.body
    if (body !== undefined && typeof body !== 'string') body = JSON.stringify(body)
    if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body)
    headers.Connection = 'close'
    const req = http.request({ host: '127.0.0.1', port, method: r.method || 'GET', path: r.path, headers, agent: false }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }))
      res.on('error', (e) => resolve({ error: e.message }))
    })
    req.setTimeout(30000, () => req.destroy(new Error('timed out')))
    req.on('error', (e) => resolve({ error: e.message }))
    if (body !== undefined) req.write(body)
    req.end()
  })
}

function decode (res, body) {
  const enc = (res.headers['content-encoding'] || '').toLowerCase()
  try {
    if (enc === 'gzip') return zlib.gunzipSync(body)
    if (enc === 'deflate') return zlib.inflateSync(body)
    if (enc === 'br') return zlib.brotliDecompressSync(body)
  } catch (e) {
    return Buffer.from(`(undecodable ${enc} body: ${e.message})`)
  }
  return body
}

function bodyText (res, buf) {
  const s = buf.toString('utf8')
  if (!Buffer.from(s, 'utf8').equals(buf)) return `(binary, ${buf.length} bytes, sha256 ${createHash('sha256').update(buf).digest('hex')})`
  // An error page's stack frames name the implementation's files: keep the
  // error's first line, drop the frames.
  if (res.statusCode >= 400) return s.replace(/(<br>)? ?(&nbsp; )*&nbsp;at [^<]*/g, '').replace(/\n\s+at .*/g, '')
  return s
}

function transcript (r, got, validators) {
  const out = [`>>> ${r.method || 'GET'} ${r.path}`]
  if (got.error) { out.push(`no response: ${got.error}`); return out.join('\n') }
  const { res, body } = got
  out.push(`status ${res.statusCode}`)
  // An HTML error page's validator is computed over its stack frames.
  const html = /^text\/html/i.test(res.headers['content-type'] || '')
  const names = Object.keys(res.headers).filter((n) => KEEP.has(n) && !(n === 'etag' && html && res.statusCode >= 400) && (validators || (n !== 'etag' && n !== 'last-modified'))).sort()
  for (const n of names) {
    let v = res.headers[n]
    if (Array.isArray(v)) v = v.join(', ')
    if (n === 'vary') v = v.split(',').map((x) => x.trim().toLowerCase()).filter(Boolean).sort().join(', ')
    out.push(`${n}: ${v}`)
  }
  out.push('body:')
  out.push(bodyText(res, decode(res, body)))
  return out.join('\n')
}

// The server's port is chosen per run: it is written as <PORT>.
function unport (text, port) {
  return text.split(`127.0.0.1:${port}`).join('127.0.0.1:<PORT>')
}

async function main () {
  copyIn('db.json')
  for (const f of scenario.copy || []) copyIn(f)
  const port = scenarioPort(scenarioFile)
  if (!(await portFree(port))) { console.log(`port ${port} of this scenario is taken`); process.exitCode = 3; return }
  const args = [binOf(build), ...(scenario.source ? [scenario.source] : ['db.json']), '--port', String(port), '--host', '127.0.0.1', ...(scenario.args || [])]
  const env = Object.assign({}, process.env)
  delete env.NODE_ENV
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env })
  let stderr = ''
  child.stderr.on('data', (c) => { stderr += c })
  let exited = null
  child.on('exit', (code, sig) => { exited = sig || code })
  const deadline = Date.now() + 60000
  for (;;) {
    if (exited !== null) { console.log(`the server exited before answering (${exited})`); process.exitCode = 3; return }
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.end(); resolve(true) })
      s.on('error', () => resolve(false))
    })
    if (ok) break
    if (Date.now() > deadline) { console.log('the server did not listen within 60 s'); child.kill('SIGKILL'); process.exitCode = 3; return }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const parts = []
  for (const r of scenario.requests) parts.push(transcript(r, await send(port, r), scenario.validators !== false))
  if (scenario.db) {
    // lowdb writes synchronously before the response; give a port that
    // writes after it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200))
    parts.push('=== db.json\n' + fs.readFileSync(scenario.source || 'db.json', 'utf8'))
  }
  child.kill('SIGTERM')
  process.stdout.write(unport(parts.join('\n\n'), port) + '\n')
  if (stderr && process.env.FW02_DEBUG) process.stderr.write(stderr)
}

main().catch((e) => { console.log(`driver error: ${e.message}`); process.exitCode = 3 })
