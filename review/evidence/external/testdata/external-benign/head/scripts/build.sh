#!/bin/sh
set -eu

out=${1:-bin}
mkdir -p "$out"
for pkg in ./cmd/*; do
  go build -o "$out/" "$pkg"
done
echo built into $out
