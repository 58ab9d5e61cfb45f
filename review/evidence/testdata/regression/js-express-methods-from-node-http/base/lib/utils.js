'use strict';

var contentType = require('content-type');

/**
 * Normalize the given `type`, for example "html" becomes "text/html".
 *
 * @param {String} type
 * @return {Object}
 * @api private
 */
exports.normalizeType = function(type){
  return ~type.indexOf('/')
    ? acceptParams(type)
    : { value: (contentType.parse('text/' + type).type), params: {} };
};

function acceptParams (str) {
  var parts = str.split(/ *; */);
  return { value: parts[0], quality: 1, params: {} };
}
