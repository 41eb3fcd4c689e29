"use strict";

// json-server's defaults as one Fastify plugin: compression, CORS, the
// static files, the request log, no-cache headers, --read-only and the
// body parsers, in the order they apply to a request.
const fs = require('fs');
const path = require('path');
const chalk = require('chalk');
const cors = require('@fastify/cors');
const compress = require('./compress');
const serveStatic = require('./static');
const bodyParser = require('./body-parser');
const { sendStatus } = require('./reply');

function logRequest(request, reply, done) {
  const url = request.originalUrl;
  if (process.env.NODE_ENV !== 'test' && url.split('?')[0] !== '/favicon.ico') {
    const status = reply.statusCode;
    const color = status >= 500 ? chalk.red : status >= 400 ? chalk.yellow : status >= 300 ? chalk.cyan : status >= 200 ? chalk.green : chalk.reset;
    const length = reply.getHeader('content-length');
    const ms = typeof reply.elapsedTime === 'number' ? reply.elapsedTime.toFixed(3) : '-';
    process.stdout.write(`${request.raw.originalMethod || request.method} ${url} ${color(status)} ${ms} ms - ${length === undefined ? '-' : length}\n`);
  }
  done();
}

module.exports = function (opts) {
  const userDir = path.join(process.cwd(), 'public');
  const defaultDir = path.join(__dirname, '../../public');
  const staticDir = fs.existsSync(userDir) ? userDir : defaultDir;
  opts = Object.assign({
    logger: true,
    static: staticDir
  }, opts);
  function defaults(fastify, _, done) {
    // Enable CORS for all the requests, including static files
    if (!opts.noCors) {
      fastify.register(cors, {
        origin: true,
        credentials: true,
        strictPreflight: false
      });
    }

    // Serve static files
    serveStatic(fastify, opts.static);

    // Logger
    if (opts.logger) {
      fastify.addHook('onResponse', logRequest);
    }

    // No cache for IE
    // https://support.microsoft.com/en-us/kb/234067
    fastify.addHook('onRequest', (request, reply, next) => {
      reply.header('Cache-Control', 'no-cache');
      reply.header('Pragma', 'no-cache');
      reply.header('Expires', '-1');
      next();
    });

    // Read-only: GET only (the method as sent, before any override)
    if (opts.readOnly) {
      fastify.addHook('onRequest', (request, reply, next) => {
        if ((request.raw.originalMethod || request.method) === 'GET') {
          next();
        } else {
          sendStatus(request, reply, 403); // Forbidden
        }
      });
    }

    // Body parsers
    if (opts.bodyParser) {
      fastify.register(bodyParser);
    }

    // Compress all answers (the last onSend hook: it sees the answer's
    // final headers)
    if (!opts.noGzip) {
      fastify.addHook('onSend', compress);
    }
    done();
  }
  defaults[Symbol.for('skip-override')] = true;
  return defaults;
};
