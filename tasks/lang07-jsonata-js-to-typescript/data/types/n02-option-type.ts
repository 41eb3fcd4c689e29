// A misuse that must not compile: an option of the wrong type.
import jsonata = require('jsonata');

export const e = jsonata('a', { recover: 'yes' });
