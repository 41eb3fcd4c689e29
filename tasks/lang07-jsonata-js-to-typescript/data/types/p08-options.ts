// A use that must compile: JsonataOptions as a named type, with a RegexEngine.
import jsonata = require('jsonata');

const opts: jsonata.JsonataOptions = { recover: false, RegexEngine: RegExp, timeout: 5, stack: 10, sequence: 3 };
const none: jsonata.JsonataOptions = {};
export const exprs = [jsonata('a', opts), jsonata('b', none), jsonata('c', undefined)];
