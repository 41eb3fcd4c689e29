// A use that must compile: assign takes a name and any value.
import jsonata = require('jsonata');

const e = jsonata('$a & $b');
e.assign('a', 'x');
e.assign('b', { nested: [1, 2] });
e.assign('f', (v: number) => v * 2);
