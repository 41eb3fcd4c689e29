"use strict";

// A singular resource (an object of the database) as a Fastify plugin,
// registered with the resource's path as its prefix.
const { fullUrl, location, send } = require('../reply');
module.exports = (db, name, opts, finish) => {
  function show(request, reply) {
    reply.locals.data = db.get(name).value();
    finish(request, reply);
  }
  function create(request, reply) {
    const body = request.body || {};
    if (opts._isFake) {
      reply.locals.data = body;
    } else {
      db.set(name, body).value();
      reply.locals.data = db.get(name).value();
    }
    reply.header('Access-Control-Expose-Headers', 'Location');
    location(reply, fullUrl(request));
    reply.code(201);
    db.write();
    finish(request, reply);
  }
  function update(request, reply) {
    const body = request.body || {};
    if (opts._isFake) {
      if (request.method === 'PUT') {
        reply.locals.data = body;
      } else {
        const resource = db.get(name).value();
        reply.locals.data = { ...resource, ...body };
      }
    } else {
      if (request.method === 'PUT') {
        db.set(name, body).value();
      } else {
        db.get(name).assign(body).value();
      }
      reply.locals.data = db.get(name).value();
    }
    db.write();
    finish(request, reply);
  }
  function singular(fastify, _, done) {
    fastify.get('/', show);
    fastify.post('/', create);
    fastify.put('/', update);
    fastify.patch('/', update);
    fastify.options('/', (request, reply) => send(request, reply.header('Allow', 'GET,POST,PUT,PATCH,HEAD'), 'GET,POST,PUT,PATCH,HEAD'));
    done();
  }
  singular.show = show;
  singular.create = create;
  return singular;
};
