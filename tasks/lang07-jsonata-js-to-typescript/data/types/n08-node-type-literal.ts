// A misuse that must not compile: "path" is not one of the node types.
import jsonata = require('jsonata');

export const k: jsonata.ExprNode['type'] = 'path';
