"use strict";

// Static files, answered before any route: a GET or HEAD whose path names
// a file under the root (index.html for a path ending in /) gets the file
// through @fastify/static, a folder named without its trailing slash is
// redirected to it, and anything else goes on to the routes.
const fs = require('fs');
const path = require('path');
const url = require('url');
const fastifyStatic = require('@fastify/static');
const { encodeUrl, escapeHtml, htmlDocument } = require('./reply');

// The types json-server's static files had where @fastify/static's mime
// table names another.
const TYPES = { '.ico': 'image/x-icon' };

function redirectToFolder(request, reply, pathname, search) {
  const loc = encodeUrl((pathname + '/').replace(/^\/{2,}/, '/') + search);
  return reply.code(301)
    .header('Content-Type', 'text/html; charset=UTF-8')
    .header('Content-Security-Policy', "default-src 'none'")
    .header('X-Content-Type-Options', 'nosniff')
    .header('Location', loc)
    .send(htmlDocument('Redirecting', 'Redirecting to ' + escapeHtml(loc)));
}

module.exports = function serveStatic(fastify, root) {
  fastify.register(fastifyStatic, {
    root,
    serve: false,
    setHeaders(res, file) {
      const type = TYPES[path.extname(file).toLowerCase()];
      if (type) res.setHeader('Content-Type', type);
    }
  });
  // A 304 carries no content headers
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 304) {
      for (const h of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-range']) reply.removeHeader(h);
    }
    done(null, payload);
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    const method = request.raw.originalMethod || request.method;
    if (method !== 'GET' && method !== 'HEAD') return done();
    const { pathname, search } = url.parse(request.originalUrl);
    let rel;
    try {
      rel = decodeURIComponent(pathname || '/');
    } catch (e) {
      return done();
    }
    if (rel.indexOf('\0') !== -1) return done();
    rel = path.normalize('.' + path.sep + rel);
    if (/(?:^|[\\/])\.\.(?:[\\/]|$)/.test(rel)) return done();
    // A dotfile is not served (a file in a dot folder is)
    const parts = rel.split(path.sep);
    if (parts[parts.length - 1][0] === '.' && parts.some(p => p.length > 1 && p[0] === '.')) return done();
    let file = path.join(root, rel);
    let stat;
    try {
      stat = fs.statSync(file);
    } catch (e) {
      return done();
    }
    if (pathname.endsWith('/')) {
      if (!stat.isDirectory()) return done();
      file = path.join(file, 'index.html');
      try {
        stat = fs.statSync(file);
      } catch (e) {
        return done();
      }
    } else if (stat.isDirectory()) {
      return redirectToFolder(request, reply, pathname, search || '');
    }
    if (!stat.isFile()) return done();
    reply.sendFile(path.relative(root, file).split(path.sep).join('/'), root, { dotfiles: 'allow' });
  });
};
