// A misuse that must not compile: ExprNode has no such field.
import jsonata = require('jsonata');

export const x = jsonata('a').ast().children;
