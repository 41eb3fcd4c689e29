// sourcemap-root-dropped (a pf02 submission fixture, not stylus's code): the
// package's entry point with one defect a careless port could introduce. It
// publishes the compiler as State A's index.js does, except that a
// source-map option's sourceRoot is dropped before the renderer sees it, so
// every map the API generates lacks the sourceRoot its caller asked for.
// The CSS, the dependency lists and bin/stylus (which loads lib/ itself)
// are untouched: only the stage-2 module that renders test/sourcemap
// observes the defect.
//
// Everything below is the whole change; lib/ is State A's.
//
//

var stylus = module.exports = require('./lib/stylus');
var Renderer = require('./lib/renderer');
var set = Renderer.prototype.set;
Renderer.prototype.set = function(key, val){
  if (key === 'sourcemap' && val && typeof val === 'object') {
    val = Object.assign({}, val);
    delete val.sourceRoot;
  }
  return set.call(this, key, val);
};
