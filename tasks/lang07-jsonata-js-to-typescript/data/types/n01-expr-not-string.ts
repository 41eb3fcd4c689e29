// A misuse that must not compile: the expression is a string.
import jsonata = require('jsonata');

export const e = jsonata(42);
