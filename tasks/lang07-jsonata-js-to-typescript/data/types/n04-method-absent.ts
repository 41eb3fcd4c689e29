// A misuse that must not compile: a method Expression does not have.
import jsonata = require('jsonata');

jsonata('a').compile();
