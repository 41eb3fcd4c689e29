// A misuse that must not compile: an option the API does not have.
import jsonata = require('jsonata');

export const e = jsonata('a', { strict: true });
