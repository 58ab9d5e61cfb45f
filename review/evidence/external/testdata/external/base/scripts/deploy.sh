#!/bin/sh
set -eu

cleanup() {
  rm -rf "$BUILD_DIR/"
}
