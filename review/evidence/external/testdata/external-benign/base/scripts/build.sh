#!/bin/sh
set -eu

go build ./...
