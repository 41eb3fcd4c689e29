// A use that must compile: evaluate returns a promise of any.
import jsonata = require('jsonata');

export async function run(): Promise<number> {
  const n: number = await jsonata('$sum(x)').evaluate({ x: [1, 2] });
  const s: string = await jsonata('"a"').evaluate(undefined);
  const p: Promise<unknown> = jsonata('1').evaluate(null, { v: 1 });
  await p;
  return n + s.length;
}
