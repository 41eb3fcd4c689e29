"use strict";

// Nested routes: GET /:resource/:id/:nested answers /:nested filtered on
// the foreign key (e.g. /posts/1/comments is /comments?postId=1), and
// POST /:resource/:id/:nested creates in /:nested with the foreign key
// set in the body. One route per resource of the database (and /db), so
// Fastify's router finds the resource.
const pluralize = require('pluralize');
const { send } = require('../reply');
module.exports = (fastify, resources, opts) => {
  const foreignKey = request => `${pluralize.singular(request.params.resource)}${opts.foreignKeySuffix}`;
  Object.keys(resources).forEach(nested => {
    const { get, post } = resources[nested];
    fastify.get(`/:resource/:id/${nested}`, (request, reply) => {
      request.query[foreignKey(request)] = request.params.id;
      get(request, reply);
    });
    if (post) {
      fastify.post(`/:resource/:id/${nested}`, (request, reply) => {
        if (request.body === undefined || request.body === null) request.body = {};
        request.body[foreignKey(request)] = request.params.id;
        post(request, reply);
      });
    }
  });
  fastify.options('/:resource/:id/:nested', (request, reply) => send(request, reply.header('Allow', 'GET,POST,HEAD'), 'GET,POST,HEAD'));
};
