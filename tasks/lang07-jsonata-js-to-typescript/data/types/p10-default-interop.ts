// A use that must compile: the export is the function and its namespace.
import jsonata = require('jsonata');

type Fn = typeof jsonata;
const f: Fn = jsonata;
const params: Parameters<Fn> = ['x', { recover: true }];
const r: ReturnType<Fn> = f(...params);
export { r };
