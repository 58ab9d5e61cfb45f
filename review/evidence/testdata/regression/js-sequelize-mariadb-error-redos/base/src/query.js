'use strict';

const ER_DUP_ENTRY = 1062;

class UniqueConstraintError extends Error {
  constructor({ message, errors, cause, fields }) {
    super(message);
    this.errors = errors;
    this.cause = cause;
    this.fields = fields;
  }
}

class MariaDbQuery {
  formatError(err) {
    switch (err.errno) {
      case ER_DUP_ENTRY: {
        const match = err.message.match(/Duplicate entry '([\S\s]*)' for key '?([^']*?)'?\s.*$/);

        let fields = {};
        let message = 'Validation error';
        const values = match ? match[1].split('-') : undefined;
        const fieldKey = match ? match[2] : undefined;
        const fieldVal = match ? match[1] : undefined;
        if (fieldKey) {
          fields[fieldKey] = fieldVal;
          message = `${fieldKey} must be unique`;
        } else if (values) {
          fields = { value: values };
        }

        return new UniqueConstraintError({ message, errors: [], cause: err, fields });
      }

      default:
        return err;
    }
  }
}

module.exports = { MariaDbQuery };
