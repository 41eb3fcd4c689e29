"use strict";

// A defect written for srb's fixture: the --routes rules rewrite GET
// requests only; every other method reaches the router unrewritten.
const express = require('express');
const rewrite = require('express-urlrewrite');
module.exports = routes => {
  const router = express.Router();
  router.get('/__rules', (req, res) => res.json(routes));
  for (const from of Object.keys(routes)) {
    const rule = rewrite(from, routes[from]);
    router.use((req, res, next) => req.method === 'GET' ? rule(req, res, next) : next());
  }
  return router;
};
