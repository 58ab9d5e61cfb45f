'use strict';

var encodeUrl = require('encodeurl');
var http = require('http');
var urlParse = require('url').parse;

var res = Object.create(http.ServerResponse.prototype);

module.exports = res;

/**
 * Set the location header to `url`.
 *
 * The given `url` can also be "back", which redirects
 * to the _Referrer_ or _Referer_ headers or "/".
 *
 * @param {String} url
 * @return {ServerResponse} for chaining
 * @public
 */
res.location = function location(url) {
  var loc = url;

  // "back" is an alias for the referrer
  if (url === 'back') {
    loc = this.req.get('Referrer') || '/';
  }

  var lowerLoc = loc.toLowerCase();
  var encodedUrl = encodeUrl(loc);
  if (lowerLoc.indexOf('https://') === 0 || lowerLoc.indexOf('http://') === 0) {
    try {
      var parsedUrl = urlParse(loc);
      var parsedEncodedUrl = urlParse(encodedUrl);
      // Because this can encode the host, check that we did not change the host
      if (parsedUrl.host !== parsedEncodedUrl.host) {
        // If the host changes after encodeUrl, return the original url
        return this.set('Location', loc);
      }
    } catch (e) {
      // If parse fails, return the original url
      return this.set('Location', loc);
    }
  }

  // set location
  return this.set('Location', encodedUrl);
};

/**
 * Redirect to the given `url` with optional response `status`
 * defaulting to 302.
 */
res.redirect = function redirect(url, status) {
  var address = this.location(url).get('Location');
  this.statusCode = status || 302;
  this.set('Content-Length', '0');
  this.set('Location', address);
  this.end();
};
