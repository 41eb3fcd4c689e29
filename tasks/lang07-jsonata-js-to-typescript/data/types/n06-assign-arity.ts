// A misuse that must not compile: assign takes a name and a value.
import jsonata = require('jsonata');

jsonata('a').assign('x');
