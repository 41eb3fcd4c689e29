// A misuse that must not compile: registerFunction needs a function.
import jsonata = require('jsonata');

jsonata('a').registerFunction('f', 'not a function');
