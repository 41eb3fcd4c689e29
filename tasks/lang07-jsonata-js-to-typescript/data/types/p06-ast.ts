// A use that must compile: ast() returns an ExprNode whose fields are typed.
import jsonata = require('jsonata');

const node: jsonata.ExprNode = jsonata('a.b').ast();
const t: string = node.type;
const kids: jsonata.ExprNode[] | undefined = node.steps;
const pos: number | undefined = node.position;
const fn: jsonata.ExprNode | undefined = node.procedure;
const lhs = node.lhs;
export const seen = [t, kids, pos, fn, lhs, node.value, node.name, node.arguments, node.expressions, node.stages, node.rhs];
