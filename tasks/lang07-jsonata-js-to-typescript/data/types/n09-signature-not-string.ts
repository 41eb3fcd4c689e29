// A misuse that must not compile: a signature is a string.
import jsonata = require('jsonata');

jsonata('a').registerFunction('f', () => 1, 5);
