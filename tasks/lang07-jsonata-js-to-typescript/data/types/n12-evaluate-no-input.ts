// A misuse that must not compile: evaluate takes the input.
import jsonata = require('jsonata');

export const p = jsonata('a').evaluate();
