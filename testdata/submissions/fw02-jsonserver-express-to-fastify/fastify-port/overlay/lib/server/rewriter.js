"use strict";

// --routes: rules that rewrite a request's URL before Fastify routes it.
// A rule's pattern is an Express path (":name" parameters, optionally
// with a (pattern) and ?, + or *; "*" for anything), matched against the
// whole URL, query string included, without regard to case and with an
// optional trailing slash; its target names the captures as ":name" or
// "$n". The rules apply in order, each to the URL the previous one left.
// The plugin answers GET /__rules with the rules and adds them to the
// rewriting that jsonServer.create() does (Fastify's rewriteUrl).
const { json, send } = require('./reply');

const kRules = Symbol.for('json-server.rewrite-rules');
const TOKEN = /(\\.)|([/.])?(?:(?::(\w+)(?:\(((?:\\.|[^\\()])+)\))?|\(((?:\\.|[^\\()])+)\))([+*?])?|(\*))/g;

const escapeString = s => s.replace(/([.+*?=^!:${}()[\]|/\\])/g, '\\$1');

// The pattern as a regular expression, and the names of its captures.
function compile(src) {
  const keys = [];
  let route = '';
  let index = 0;
  let unnamed = 0;
  let m;
  TOKEN.lastIndex = 0;
  while ((m = TOKEN.exec(src)) !== null) {
    let text = src.slice(index, m.index);
    index = m.index + m[0].length;
    if (m[1]) {
      route += escapeString(text + m[1][1]);
      continue;
    }
    route += escapeString(text);
    const [, , prefix, name, capture, group, modifier, asterisk] = m;
    const next = src[index];
    const partial = prefix != null && next != null && next !== prefix;
    const delimiter = prefix || '/';
    const pattern = (capture || group) ? (capture || group).replace(/([=!:$/()])/g, '\\$1')
      : asterisk ? '.*' : '[^' + escapeString(delimiter) + ']+?';
    keys.push(name || unnamed++);
    const p = escapeString(prefix || '');
    let c = '(?:' + pattern + ')';
    if (modifier === '+' || modifier === '*') c += '(?:' + p + c + ')*';
    if (modifier === '?' || modifier === '*') {
      route += partial ? p + '(' + c + ')?' : '(?:' + p + '(' + c + '))?';
    } else {
      route += p + '(' + c + ')';
    }
  }
  route += escapeString(src.slice(index));
  if (route.endsWith('\\/')) route = route.slice(0, -2);
  return { re: new RegExp('^' + route + '(?:\\/(?=$))?$', 'i'), keys };
}

function rule(src, dst) {
  const { re, keys } = compile(src);
  return url => {
    const m = re.exec(url);
    if (!m) return url;
    return dst.replace(/\$(\d+)|(?::(\w+))/g, (_, n, name) => name ? m[keys.indexOf(name) + 1] : m[n]);
  };
}

// The URL a request is routed by: the rules applied in turn, except to a
// GET or HEAD of /__rules, which is answered before any rule.
function rewrite(rules, method, url) {
  if ((method === 'GET' || method === 'HEAD') && /^\/__rules\/?(?:\?|$)/i.test(url)) return url;
  return rules.reduce((u, r) => r(u), url);
}

function rewriter(routes) {
  function plugin(fastify, _, done) {
    if (!Array.isArray(fastify[kRules])) {
      return done(new Error('jsonServer.rewriter() needs an app made by jsonServer.create()'));
    }
    fastify.get('/__rules', (request, reply) => json(request, reply, routes));
    fastify.options('/__rules', (request, reply) => {
      send(request, reply.header('Allow', 'GET,HEAD'), 'GET,HEAD');
    });
    Object.keys(routes).forEach(key => fastify[kRules].push(rule(key, routes[key])));
    done();
  }
  plugin[Symbol.for('skip-override')] = true;
  return plugin;
}

module.exports = rewriter;
module.exports.kRules = kRules;
module.exports.rewrite = rewrite;
