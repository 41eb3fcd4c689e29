"use strict";

// A plural resource (an array of the database) as a Fastify plugin,
// registered with the resource's path as its prefix.
const _ = require('lodash');
const pluralize = require('pluralize');
const utils = require('../utils');
const { fullUrl, links, location, send } = require('../reply');
module.exports = (db, name, opts, finish) => {
  // Embed function used in GET /name and GET /name/id
  function embed(resource, e) {
    e && [].concat(e).forEach(externalResource => {
      if (db.get(externalResource).value) {
        const query = {};
        const singularResource = pluralize.singular(name);
        query[`${singularResource}${opts.foreignKeySuffix}`] = resource.id;
        resource[externalResource] = db.get(externalResource).filter(query).value();
      }
    });
  }

  // Expand function used in GET /name and GET /name/id
  function expand(resource, e) {
    e && [].concat(e).forEach(innerResource => {
      const plural = pluralize(innerResource);
      if (db.get(plural).value()) {
        const prop = `${innerResource}${opts.foreignKeySuffix}`;
        resource[innerResource] = db.get(plural).getById(resource[prop]).value();
      }
    });
  }

  // GET /name
  // GET /name?q=
  // GET /name?attr=&attr=
  // GET /name?_end=&
  // GET /name?_start=&_end=&
  // GET /name?_embed=&_expand=
  function list(request, reply) {
    const query = request.query;
    // Resource chain
    let chain = db.get(name);

    // Remove q, _start, _end, ... from the query to avoid filtering using
    // those parameters
    let q = query.q;
    let _start = query._start;
    let _end = query._end;
    let _page = query._page;
    const _sort = query._sort;
    const _order = query._order;
    let _limit = query._limit;
    const _embed = query._embed;
    const _expand = query._expand;
    delete query.q;
    delete query._start;
    delete query._end;
    delete query._sort;
    delete query._order;
    delete query._limit;
    delete query._embed;
    delete query._expand;

    // Automatically delete query parameters that can't be found
    // in the database
    Object.keys(query).forEach(key => {
      const arr = db.get(name).value();
      for (const i in arr) {
        if (_.has(arr[i], key) || key === 'callback' || key === '_' || /_lte$/.test(key) || /_gte$/.test(key) || /_ne$/.test(key) || /_like$/.test(key)) return;
      }
      delete query[key];
    });
    if (q) {
      // Full-text search
      if (Array.isArray(q)) {
        q = q[0];
      }
      q = q.toLowerCase();
      chain = chain.filter(obj => {
        for (const key in obj) {
          const value = obj[key];
          if (db._.deepQuery(value, q)) {
            return true;
          }
        }
        return false;
      });
    }
    Object.keys(query).forEach(key => {
      // Don't take into account JSONP query parameters
      // jQuery adds a '_' query parameter too
      if (key !== 'callback' && key !== '_') {
        // Always use an array, in case the parameter is repeated
        const arr = [].concat(query[key]);
        const isDifferent = /_ne$/.test(key);
        const isRange = /_lte$/.test(key) || /_gte$/.test(key);
        const isLike = /_like$/.test(key);
        const path = key.replace(/(_lte|_gte|_ne|_like)$/, '');
        chain = chain.filter(element => {
          return arr.map(function (value) {
            // get item value based on path
            // i.e post.title -> 'foo'
            const elementValue = _.get(element, path);

            // Prevent toString() failing on undefined or null values
            if (elementValue === undefined || elementValue === null) {
              return undefined;
            }
            if (isRange) {
              const isLowerThan = /_gte$/.test(key);
              return isLowerThan ? value <= elementValue : value >= elementValue;
            } else if (isDifferent) {
              return value !== elementValue.toString();
            } else if (isLike) {
              return new RegExp(value, 'i').test(elementValue.toString());
            } else {
              return value === elementValue.toString();
            }
          }).reduce((a, b) => isDifferent ? a && b : a || b);
        });
      }
    });

    // Sort
    if (_sort) {
      const _sortSet = _sort.split(',');
      const _orderSet = (_order || '').split(',').map(s => s.toLowerCase());
      chain = chain.orderBy(_sortSet, _orderSet);
    }

    // Slice result
    if (_end || _limit || _page) {
      reply.header('X-Total-Count', chain.size());
      reply.header('Access-Control-Expose-Headers', `X-Total-Count${_page ? ', Link' : ''}`);
    }
    if (_page) {
      _page = parseInt(_page, 10);
      _page = _page >= 1 ? _page : 1;
      _limit = parseInt(_limit, 10) || 10;
      const page = utils.getPage(chain.value(), _page, _limit);
      const rels = {};
      const fullURL = fullUrl(request);
      if (page.first) {
        rels.first = fullURL.replace(`page=${page.current}`, `page=${page.first}`);
      }
      if (page.prev) {
        rels.prev = fullURL.replace(`page=${page.current}`, `page=${page.prev}`);
      }
      if (page.next) {
        rels.next = fullURL.replace(`page=${page.current}`, `page=${page.next}`);
      }
      if (page.last) {
        rels.last = fullURL.replace(`page=${page.current}`, `page=${page.last}`);
      }
      links(reply, rels);
      chain = _.chain(page.items);
    } else if (_end) {
      _start = parseInt(_start, 10) || 0;
      _end = parseInt(_end, 10);
      chain = chain.slice(_start, _end);
    } else if (_limit) {
      _start = parseInt(_start, 10) || 0;
      _limit = parseInt(_limit, 10);
      chain = chain.slice(_start, _start + _limit);
    }

    // embed and expand
    chain = chain.cloneDeep().forEach(function (element) {
      embed(element, _embed);
      expand(element, _expand);
    });
    reply.locals.data = chain.value();
    finish(request, reply);
  }

  // GET /name/:id
  // GET /name/:id?_embed=&_expand
  function show(request, reply) {
    const _embed = request.query._embed;
    const _expand = request.query._expand;
    const resource = db.get(name).getById(request.params.id).value();
    if (resource) {
      // Clone resource to avoid making changes to the underlying object
      const clone = _.cloneDeep(resource);

      // Embed other resources based on resource id
      // /posts/1?_embed=comments
      embed(clone, _embed);

      // Expand inner resources based on id
      // /posts/1?_expand=user
      expand(clone, _expand);
      reply.locals.data = clone;
    }
    finish(request, reply);
  }

  // POST /name
  function create(request, reply) {
    const body = request.body || {};
    let resource;
    if (opts._isFake) {
      const id = db.get(name).createId().value();
      resource = { ...body, id };
    } else {
      resource = db.get(name).insert(body).value();
    }
    reply.header('Access-Control-Expose-Headers', 'Location');
    location(reply, `${fullUrl(request)}/${resource.id}`);
    reply.code(201);
    reply.locals.data = resource;
    db.write();
    finish(request, reply);
  }

  // PUT /name/:id
  // PATCH /name/:id
  function update(request, reply) {
    const body = request.body || {};
    const id = request.params.id;
    let resource;
    if (opts._isFake) {
      resource = db.get(name).getById(id).value();
      if (request.method === 'PATCH') {
        resource = { ...resource, ...body };
      } else {
        resource = { ...body, id: resource.id };
      }
    } else {
      let chain = db.get(name);
      chain = request.method === 'PATCH' ? chain.updateById(id, body) : chain.replaceById(id, body);
      resource = chain.value();
    }
    if (resource) {
      reply.locals.data = resource;
    }
    db.write();
    finish(request, reply);
  }

  // DELETE /name/:id
  function destroy(request, reply) {
    let resource;
    if (opts._isFake) {
      resource = db.get(name).value();
    } else {
      resource = db.get(name).removeById(request.params.id).value();

      // Remove dependents documents
      const removable = db._.getRemovable(db.getState(), opts);
      removable.forEach(item => {
        db.get(item.name).removeById(item.id).value();
      });
    }
    if (resource) {
      reply.locals.data = {};
    }
    db.write();
    finish(request, reply);
  }

  const allow = methods => (request, reply) => send(request, reply.header('Allow', methods), methods);
  function plural(fastify, _opts, done) {
    fastify.get('/', list);
    fastify.post('/', create);
    fastify.options('/', allow('GET,POST,HEAD'));
    fastify.get('/:id', show);
    fastify.put('/:id', update);
    fastify.patch('/:id', update);
    fastify.delete('/:id', destroy);
    fastify.options('/:id', allow('GET,PUT,PATCH,DELETE,HEAD'));
    done();
  }
  plural.list = list;
  plural.create = create;
  return plural;
};
