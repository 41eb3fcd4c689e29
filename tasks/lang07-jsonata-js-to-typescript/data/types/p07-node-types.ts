// A use that must compile: the node type is a union of string literals.
import jsonata = require('jsonata');

type Kind = jsonata.ExprNode['type'];
const kinds: Kind[] = ['binary', 'unary', 'function', 'partial', 'lambda', 'condition', 'transform', 'block', 'name', 'parent',
  'string', 'number', 'value', 'wildcard', 'descendant', 'variable', 'regexp', 'operator', 'error'];
export function describe(n: jsonata.ExprNode): string {
  switch (n.type) {
    case 'binary': return 'op';
    default: return n.type;
  }
}
export { kinds };
