// A use that must compile: JsonataError extends Error.
import jsonata = require('jsonata');

export function asError(e: jsonata.JsonataError): Error {
  const name: string = e.name;
  const stack: string | undefined = e.stack;
  void [name, stack];
  return e;
}
