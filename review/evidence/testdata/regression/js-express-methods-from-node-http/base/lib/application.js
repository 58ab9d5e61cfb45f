'use strict';

var finalhandler = require('finalhandler');
var Router = require('router');
var methods = require('methods');

var app = exports = module.exports = {};

/**
 * Delegate `.VERB(...)` calls to `router.VERB(...)`.
 */
methods.forEach(function (method) {
  app[method] = function (path) {
    if (method === 'get' && arguments.length === 1) {
      // app.get(setting)
      return this.set(path);
    }

    var route = this.route(path);
    route[method].apply(route, Array.prototype.slice.call(arguments, 1));
    return this;
  };
});

app.handle = function handle(req, res, callback) {
  var done = callback || finalhandler(req, res, { env: this.get('env') });
  this.router.handle(req, res, done);
};

app.lazyrouter = function lazyrouter() {
  if (!this.router) {
    this.router = new Router({ caseSensitive: this.enabled('case sensitive routing') });
  }
};
