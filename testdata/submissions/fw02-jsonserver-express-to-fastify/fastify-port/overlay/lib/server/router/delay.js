"use strict";

// ?_delay=ms as a preHandler hook: the answer waits that long (1 ms when
// the parameter is absent), and the parameter leaves the query.
module.exports = function delay(request, reply, done) {
  const query = request.query || {};
  const _delay = !isNaN(parseFloat(query._delay)) ? parseFloat(query._delay) : 1;
  delete query._delay;
  setTimeout(done, _delay);
};
