'use strict'
const { EventEmitter } = require('events')

class Parser extends EventEmitter {
  constructor (opt = {}) {
    super()
    this.strict = !!opt.strict
  }

  warn (code, message, data = {}) {
    if (this.strict) {
      this.emit('error', Object.assign(new Error(message), { code }, data))
    } else {
      this.emit('warn', code, message, data)
    }
  }
}

exports.Parser = Parser
