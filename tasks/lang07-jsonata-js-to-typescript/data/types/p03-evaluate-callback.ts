// A use that must compile: evaluate with bindings and a node-style callback.
import jsonata = require('jsonata');

const e = jsonata('$x + 1');
e.evaluate({}, { x: 1 }, (err: jsonata.JsonataError, resp: any) => {
  if (err) {
    const where: number = err.position;
    const code: string = err.code;
    const token: string = err.token;
    void [where, code, token, err.message];
  }
  return resp;
});
e.evaluate({}, undefined, (err, resp) => void [err, resp]);
