"use strict";

// Compression as an onSend hook: every answer of a compressible type
// varies on Accept-Encoding, and from 1 KiB on (or a stream of unknown
// length) it is compressed with the coding the client prefers (brotli,
// gzip or deflate), except for HEAD and for Cache-Control: no-transform.
const zlib = require('zlib');
const { pipeline } = require('stream');
const { vary } = require('./reply');

const THRESHOLD = 1024;
const COMPRESSIBLE = /^text\/|\+(?:json|text|xml)$|^application\/(?:json|javascript|x-javascript|ecmascript|xml|xhtml\+xml|wasm)$|^image\/(?:svg\+xml|x-icon|vnd\.microsoft\.icon|bmp)$/i;
const CODINGS = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED = ['br', 'gzip'];

// The coding to use for an Accept-Encoding header: the highest quality,
// the most specific match, then brotli before gzip, then the client's
// order. identity is acceptable unless refused.
function negotiate(header) {
  const accepts = [];
  let hasIdentity = false;
  let minQuality = 1;
  const parts = String(header || '').split(',');
  parts.forEach((part, i) => {
    const m = /^\s*([^\s;]+)\s*(?:;(.*))?$/.exec(part.trim());
    if (!m) return;
    let q = 1;
    for (const p of (m[2] || '').split(';')) {
      const kv = p.trim().split('=');
      if (kv[0] === 'q') {
        q = parseFloat(kv[1]);
        break;
      }
    }
    accepts.push({ coding: m[1], q, i });
    if (m[1].toLowerCase() === 'identity' || m[1] === '*') hasIdentity = true;
    minQuality = Math.min(minQuality, q || 1);
  });
  if (!hasIdentity) accepts.push({ coding: 'identity', q: minQuality, i: parts.length });
  const ranked = CODINGS.map((coding, index) => {
    let best = { coding, o: -1, q: 0, s: 0 };
    for (const a of accepts) {
      let s = 0;
      if (a.coding.toLowerCase() === coding) s = 1;
      else if (a.coding !== '*') continue;
      const spec = { coding, i: index, o: a.i, q: a.q, s };
      if ((best.s - spec.s || best.q - spec.q || best.o - spec.o) < 0) best = spec;
    }
    return best;
  }).filter(p => p.q > 0);
  ranked.sort((a, b) => {
    if (a.q !== b.q) return b.q - a.q;
    const ap = PREFERRED.indexOf(a.coding);
    const bp = PREFERRED.indexOf(b.coding);
    if (ap === -1 && bp === -1) return (b.s - a.s) || (a.o - b.o) || (a.i - b.i);
    if (ap !== -1 && bp !== -1) return ap - bp;
    return ap === -1 ? 1 : -1;
  });
  return ranked.length ? ranked[0].coding : undefined;
}

function compress(request, reply, payload, done) {
  const type = reply.getHeader('content-type');
  if (type === undefined || !COMPRESSIBLE.test(String(type).split(';')[0].trim())) return done(null, payload);
  if (/(?:^|,)\s*?no-transform\s*?(?:,|$)/i.test(reply.getHeader('cache-control') || '')) return done(null, payload);
  vary(reply, 'Accept-Encoding');
  if (payload == null) return done(null, payload);
  const stream = typeof payload.pipe === 'function';
  const length = reply.hasHeader('content-length') ? Number(reply.getHeader('content-length')) : stream ? undefined : Buffer.byteLength(payload);
  if (length < THRESHOLD) return done(null, payload);
  const current = reply.getHeader('content-encoding') || 'identity';
  if (current !== 'identity' || request.method === 'HEAD') return done(null, payload);
  const coding = negotiate(request.headers['accept-encoding']);
  if (!coding || coding === 'identity') return done(null, payload);
  reply.header('Content-Encoding', coding);
  reply.removeHeader('content-length');
  const z = coding === 'gzip' ? zlib.createGzip()
    : coding === 'br' ? zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })
      : zlib.createDeflate();
  if (stream) pipeline(payload, z, () => {});
  else z.end(payload);
  done(null, z);
}

module.exports = compress;
module.exports.negotiate = negotiate;
