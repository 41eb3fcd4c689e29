// A misuse that must not compile: an error's position is a number.
import jsonata = require('jsonata');

export function where(e: jsonata.JsonataError): string {
  return e.position;
}
