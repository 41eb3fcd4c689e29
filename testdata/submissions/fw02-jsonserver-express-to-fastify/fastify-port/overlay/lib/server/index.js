"use strict";

const http = require('http');
const fastify = require('fastify');
const { kRules, rewrite } = require('./rewriter');

// X-HTTP-Method-Override on a POST: the method it names, if Node knows it.
function overriddenMethod(req) {
  if (req.method !== 'POST') return req.method;
  const header = req.headers['x-http-method-override'];
  if (!header) return req.method;
  const method = header.split(',')[0].trim().toUpperCase();
  return http.METHODS.includes(method) ? method : req.method;
}

// A Fastify app as json-server serves: paths matched without regard to
// case or a trailing slash, and each request rewritten before it is
// routed: the --routes rules on its URL, the method override on its
// method (the method as sent is kept as req.originalMethod).
function create() {
  const app = fastify({
    caseSensitive: false,
    ignoreTrailingSlash: true,
    maxParamLength: 2048,
    bodyLimit: 10 * 1024 * 1024,
    rewriteUrl(req) {
      req.originalMethod = req.method;
      const url = rewrite(this[kRules], req.method, req.url);
      req.method = overriddenMethod(req);
      return url;
    }
  });
  app[kRules] = [];
  return app;
}

module.exports = {
  create,
  defaults: require('./defaults'),
  router: require('./router'),
  rewriter: require('./rewriter'),
  bodyParser: require('./body-parser')
};
