// A use that must compile: registerFunction with a typed `this` and a signature.
import jsonata = require('jsonata');

const e = jsonata('$double(2)');
e.registerFunction('double', (x: number) => x * 2);
e.registerFunction('double', (x: number) => x * 2, '<n:n>');
e.registerFunction('ctx', function (this: jsonata.Focus) {
  const env: jsonata.Environment = this.environment;
  const stamp: Date = env.timestamp;
  const isAsync: boolean = env.async;
  env.bind('y', 1);
  env.bind(Symbol('s'), 2);
  return [this.input, env.lookup('y'), stamp, isAsync];
});
