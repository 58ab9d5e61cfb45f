'use strict'
const path = require('path')
const { Parser } = require('./parse.js')

const STRIPABSOLUTEPATH = Symbol('stripAbsolutePath')
const CHECKPATH = Symbol('checkPath')

class Unpack extends Parser {
  constructor (opt = {}) {
    super(opt)
    this.preservePaths = !!opt.preservePaths
    this.cwd = path.resolve(opt.cwd || process.cwd())
  }

  // returns true if the entry's field may be used, false (with a warning) if not
  [STRIPABSOLUTEPATH] (entry, field) {
    const p = entry[field]
    const { type } = entry
    if (!p || this.preservePaths) return true

    const parts = p.split('/')
    if (parts.includes('..')) {
      // For linkpath, check if the resolved path escapes cwd rather than
      // just rejecting any path with '..' - relative symlinks like
      // '../sibling/file' are valid if they resolve within the cwd.
      // For paths, they just simply may not ever use .. at all.
      if (field === 'path' || type === 'Link') {
        this.warn('TAR_ENTRY_ERROR', `${field} contains '..'`, {
          entry,
          [field]: p,
        })
        return false
      } else {
        // resolve the linkpath relative to the entry's directory
        const entryDir = path.posix.dirname(entry.path)
        const resolved = path.posix.normalize(path.posix.join(entryDir, p))
        if (resolved.startsWith('../') || resolved === '..') {
          this.warn('TAR_ENTRY_ERROR', `${field} escapes extraction directory`, {
            entry,
            [field]: p,
          })
          return false
        }
      }
    }
    return true
  }

  [CHECKPATH] (entry) {
    if (!this[STRIPABSOLUTEPATH](entry, 'path') ||
        !this[STRIPABSOLUTEPATH](entry, 'linkpath')) {
      return false
    }
    entry.absolute = path.resolve(this.cwd, entry.path)
    return true
  }
}

exports.Unpack = Unpack
