"use strict";

// The router: a Fastify plugin with a route for /db, every resource of
// the database (plural and singular) and their nested routes. A handler
// leaves what it found in reply.locals.data and router.render answers it
// (JSON, or JSONP with ?callback=); nothing found is 404 {}, and so is
// any request no route takes.
const _ = require('lodash');
const lodashId = require('lodash-id');
const low = require('lowdb');
const Memory = require('lowdb/adapters/Memory');
const FileSync = require('lowdb/adapters/FileSync');
const bodyParser = require('../body-parser');
const validateData = require('./validate-data');
const plural = require('./plural');
const nested = require('./nested');
const singular = require('./singular');
const delay = require('./delay');
const mixins = require('../mixins');
const { jsonp, send, vary, errorPage } = require('../reply');
module.exports = (db, opts) => {
  opts = Object.assign({
    foreignKeySuffix: 'Id',
    _isFake: false
  }, opts);
  if (typeof db === 'string') {
    db = low(new FileSync(db));
  } else if (!_.has(db, '__chain__') || !_.has(db, '__wrapped__')) {
    db = low(new Memory()).setState(db);
  }
  validateData(db.getState());

  // Add lodash-id methods to db
  db._.mixin(lodashId);

  // Add specific mixins
  db._.mixin(mixins);

  // What a handler found is rendered; nothing found is 404 {}
  function finish(request, reply) {
    if (!reply.locals.data) {
      reply.code(404);
      reply.locals.data = {};
    }
    router.render(request, reply);
  }

  // The resources, by name
  const resources = {};
  db.forEach((value, key) => {
    if (key === '$schema') {
      // ignore $schema
      return;
    }
    if (_.isPlainObject(value)) {
      const plugin = singular(db, key, opts, finish);
      resources[key] = { plugin, get: plugin.show, post: plugin.create };
      return;
    }
    if (_.isArray(value)) {
      const plugin = plural(db, key, opts, finish);
      resources[key] = { plugin, get: plugin.list, post: plugin.create };
      return;
    }
    const sourceMessage = '';
    const msg = `Type of "${key}" (${typeof value}) ${sourceMessage} is not supported. ` + `Use objects or arrays of objects.`;
    throw new Error(msg);
  }).value();
  function showDb(request, reply) {
    reply.jsonp(db.getState());
  }
  function router(fastify, _opts, done) {
    fastify.register(bodyParser);
    if (!fastify.hasReplyDecorator('locals')) {
      fastify.decorateReply('locals', null);
    }
    if (!fastify.hasReplyDecorator('jsonp')) {
      fastify.decorateReply('jsonp', function (obj) {
        return jsonp(this.request, this, obj);
      });
    }
    fastify.addHook('onRequest', (request, reply, next) => {
      reply.locals = {};
      next();
    });

    // A POST is answered according to X-HTTP-Method-Override
    fastify.addHook('preHandler', (request, reply, next) => {
      if ((request.raw.originalMethod || request.method) === 'POST') {
        vary(reply, 'X-HTTP-Method-Override');
      }
      next();
    });
    fastify.addHook('preHandler', delay);

    // GET /db
    fastify.get('/db', showDb);

    // GET and POST /:parent/:parentId/:resource
    nested(fastify, Object.assign({ db: { get: showDb } }, resources), opts);

    // The resources
    Object.keys(resources).forEach(key => {
      fastify.register(resources[key].plugin, { prefix: `/${key}` });
    });
    fastify.setNotFoundHandler(finish);
    fastify.setErrorHandler((err, request, reply) => {
      // A request refused before it reached a resource
      if (err.statusCode >= 400 && err.statusCode < 500) {
        return errorPage(reply, err);
      }
      console.error(err.stack);
      reply.code(500);
      return send(request, reply, err.stack);
    });
    done();
  }
  router[Symbol.for('skip-override')] = true;

  // Expose database
  router.db = db;

  // Expose render
  router.render = (request, reply) => {
    reply.jsonp(reply.locals.data);
  };
  return router;
};
