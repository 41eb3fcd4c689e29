// A misuse that must not compile: the environment's timestamp is read-only.
import jsonata = require('jsonata');

jsonata('a').registerFunction('f', function (this: jsonata.Focus) {
  this.environment.timestamp = new Date();
});
