"use strict";

// How json-server answers, written for Fastify's request and reply: the
// body with its weak validator (and the 304 a matching If-None-Match
// gets), JSON and JSONP, the Link and Location headers, Vary, and the
// HTML page of a refused request.
const crypto = require('crypto');
const http = require('http');

// A weak validator over the body: its length in hex and its SHA-1.
function etag(body) {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const hash = crypto.createHash('sha1').update(buf).digest('base64').substring(0, 27);
  return `W/"${buf.length.toString(16)}-${hash}"`;
}

// Whether the client's copy is still good: If-None-Match against the
// answer's ETag, If-Modified-Since against its Last-Modified.
function fresh(request, reply) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const status = reply.statusCode;
  if (!(status >= 200 && status < 300) && status !== 304) return false;
  const modifiedSince = request.headers['if-modified-since'];
  const noneMatch = request.headers['if-none-match'];
  if (!modifiedSince && !noneMatch) return false;
  const cacheControl = request.headers['cache-control'];
  if (cacheControl && /(?:^|,)\s*?no-cache\s*?(?:,|$)/.test(cacheControl)) return false;
  if (noneMatch && noneMatch !== '*') {
    const tag = reply.getHeader('etag');
    if (!tag) return false;
    const matches = noneMatch.split(',').map(s => s.trim()).filter(Boolean);
    if (!matches.some(m => m === tag || m === 'W/' + tag || 'W/' + m === tag)) return false;
  }
  if (modifiedSince) {
    const lastModified = reply.getHeader('last-modified');
    if (!lastModified || !(Date.parse(lastModified) <= Date.parse(modifiedSince))) return false;
  }
  return true;
}

// Adds field to the Vary header unless it is there already.
function vary(reply, field) {
  const header = reply.getHeader('vary');
  const current = Array.isArray(header) ? header.join(', ') : header ? String(header) : '';
  const fields = current.split(',').map(s => s.trim().toLowerCase()).filter(Boolean);
  if (fields.includes('*') || fields.includes(field.toLowerCase())) return;
  reply.header('Vary', current ? `${current}, ${field}` : field);
}

function withCharset(type) {
  return type.replace(/;\s*charset=[^;]*/i, '') + '; charset=utf-8';
}

// Sends a text body: text/html unless a type is set, utf-8, a weak ETag,
// and 304 without a body when the client's copy is fresh.
function send(request, reply, body) {
  reply.header('Content-Type', withCharset(reply.getHeader('content-type') || 'text/html'));
  if (!reply.hasHeader('etag')) reply.header('ETag', etag(body));
  if (fresh(request, reply)) reply.code(304);
  if (reply.statusCode === 204 || reply.statusCode === 304) {
    reply.removeHeader('content-type');
    reply.removeHeader('content-length');
    reply.removeHeader('transfer-encoding');
    body = '';
  }
  return reply.send(body);
}

// JSON indented by two spaces, or JSONP when the query names a callback.
function jsonp(request, reply, obj) {
  let body = JSON.stringify(obj, null, 2);
  let callback = (request.query || {}).callback;
  if (!reply.hasHeader('content-type')) {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Content-Type', 'application/json');
  }
  if (Array.isArray(callback)) callback = callback[0];
  if (typeof callback === 'string' && callback.length !== 0) {
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('Content-Type', 'text/javascript');
    callback = callback.replace(/[^[\]\w$.]/g, '');
    body = body === undefined ? '' : body.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
    body = `/**/ typeof ${callback} === 'function' && ${callback}(${body});`;
  }
  return send(request, reply, body === undefined ? '' : body);
}

// JSON indented by two spaces.
function json(request, reply, obj) {
  if (!reply.hasHeader('content-type')) reply.header('Content-Type', 'application/json');
  return send(request, reply, JSON.stringify(obj, null, 2));
}

// The status alone: its reason phrase as plain text.
function sendStatus(request, reply, code) {
  reply.code(code).header('Content-Type', 'text/plain');
  return send(request, reply, http.STATUS_CODES[code] || String(code));
}

// The Link header of a page: rel -> URL.
function links(reply, rels) {
  const link = reply.getHeader('link');
  const value = Object.keys(rels).map(rel => `<${rels[rel]}>; rel="${rel}"`).join(', ');
  reply.header('Link', link ? `${link}, ${value}` : value);
}

// Percent-encodes what a URL may not hold, keeping valid escapes.
function encodeUrl(url) {
  return String(url)
    .replace(/(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uD800-\uDBFF]([^\uDC00-\uDFFF]|$)/g, '$1\uFFFD$2')
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]|%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|$))+/g, encodeURI);
}

function location(reply, url) {
  reply.header('Location', encodeUrl(url));
}

// The URL the client asked for, with scheme and host.
function fullUrl(request) {
  const host = request.headers.host;
  return `${request.protocol}:${host ? '//' + host : ''}${request.url}`;
}

function escapeHtml(s) {
  return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function htmlDocument(title, body) {
  return '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    `<title>${title}</title>\n</head>\n<body>\n<pre>${body}</pre>\n</body>\n</html>\n`;
}

// The page of a request refused before it reached a resource (a body
// that does not parse, too large, of an unsupported charset): the error's
// status and its stack.
function errorPage(reply, error) {
  let status = error.status || error.statusCode;
  if (!(status >= 400 && status < 600)) status = 500;
  const message = error.stack || String(error) || http.STATUS_CODES[status];
  const body = escapeHtml(message).replace(/\n/g, '<br>').replace(/\x20{2}/g, ' &nbsp;');
  reply.removeHeader('content-encoding');
  reply.removeHeader('etag');
  return reply.code(status)
    .header('Content-Security-Policy', "default-src 'none'")
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Type', 'text/html; charset=utf-8')
    .send(htmlDocument('Error', body));
}

module.exports = {
  etag, fresh, vary, send, jsonp, json, sendStatus, links, location, encodeUrl,
  fullUrl, escapeHtml, htmlDocument, errorPage
};
