"use strict";

// Request bodies as a Fastify plugin of content-type parsers: JSON objects
// and arrays (strict, up to 10 MB), urlencoded forms (Node's querystring,
// up to 100 KB and 1000 parameters), an empty body as {}, and {} for a
// body of any other type. A body that does not parse is refused with 400
// (413, 415) and the error page.
const querystring = require('querystring');

function httpError(status, error, props) {
  error.status = error.statusCode = status;
  error.expose = true;
  return Object.assign(error, props);
}

function charsetOf(contentType) {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType || '');
  return m ? m[1].toLowerCase() : undefined;
}

// The error JSON.parse gives for the first character of a body that is
// neither an object nor an array.
function strictSyntaxError(str, char) {
  const index = str.indexOf(char);
  const partial = index !== -1 ? str.substring(0, index) + '#'.repeat(str.length - index) : '';
  try {
    JSON.parse(partial);
    throw new SyntaxError('strict violation');
  } catch (e) {
    const message = e.message.replace(/#+/g, p => str.substring(index, index + p.length));
    e.stack = e.stack.replace(e.message, message);
    e.message = message;
    return e;
  }
}

function parseJson(request, body, done) {
  const charset = charsetOf(request.headers['content-type']) || 'utf-8';
  if (charset.slice(0, 4) !== 'utf-') {
    return done(httpError(415, new Error(`unsupported charset "${charset.toUpperCase()}"`), { charset, type: 'charset.unsupported' }));
  }
  if (body.length === 0) return done(null, {});
  const first = (/^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d])/.exec(body) || [])[1];
  let parsed;
  try {
    if (first !== '{' && first !== '[') throw strictSyntaxError(body, first);
    parsed = JSON.parse(body);
  } catch (e) {
    return done(httpError(400, e, { body, type: 'entity.parse.failed' }));
  }
  done(null, parsed);
}

function parseForm(request, body, done) {
  const charset = charsetOf(request.headers['content-type']) || 'utf-8';
  if (charset !== 'utf-8') {
    return done(httpError(415, new Error(`unsupported charset "${charset.toUpperCase()}"`), { charset, type: 'charset.unsupported' }));
  }
  if (body.length === 0) return done(null, {});
  let count = 0;
  for (let i = body.indexOf('&'); i !== -1; i = body.indexOf('&', i + 1)) {
    if (++count === 1000) return done(httpError(413, new Error('too many parameters'), { type: 'parameters.too.many' }));
  }
  done(null, querystring.parse(body, undefined, undefined, { maxKeys: 1000 }));
}

function bodyParser(fastify, opts, done) {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 10 * 1024 * 1024 }, parseJson);
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 100 * 1024 }, parseForm);
  fastify.addContentTypeParser('*', (request, payload, next) => next(null, {}));
  done();
}
bodyParser[Symbol.for('skip-override')] = true;

module.exports = bodyParser;
