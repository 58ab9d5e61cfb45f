#!/bin/sh
set -eu

BUILD_DIR=${1:-build}
TARGET=${2:-}

cleanup() {
  rm -rf "$BUILD_DIR/"
}

publish() {
  rm -rf "$TARGET/"
  cp -r "$BUILD_DIR" "$TARGET"
}
