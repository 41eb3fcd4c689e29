// A use that must compile: the export is callable and returns an Expression.
import jsonata = require('jsonata');

const expr: jsonata.Expression = jsonata('Account.Order[0].OrderID');
const withOptions = jsonata('a.b', { recover: true, timeout: 100, stack: 50, sequence: 1000 });
export const pair: [jsonata.Expression, jsonata.Expression] = [expr, withOptions];
