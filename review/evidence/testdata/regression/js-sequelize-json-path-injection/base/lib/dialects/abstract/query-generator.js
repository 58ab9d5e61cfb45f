'use strict';

const QueryGenerator = {
  quoteIdentifier(identifier) {
    return '"' + String(identifier).replace(/"/g, '""') + '"';
  },

  isIdentifierQuoted(string) {
    return /^\s*(?:([`"'])(?:(?!\1).|\1{2})*\1\.?)+\s*$/i.test(string);
  },

  escape(value) {
    return "'" + String(value).replace(/'/g, "''") + "'";
  }
};

module.exports = QueryGenerator;
