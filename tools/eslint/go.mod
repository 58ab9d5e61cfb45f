// Not Go: this directory is the npm package of debatebot's ESLint setup. This file makes it a
// module of its own, so that the Go files some npm packages ship in node_modules (after
// `npm ci --prefix tools/eslint`) stay out of the project's `go vet ./...` and `go test ./...`.
module debatebot.invalid/tools/eslint

go 1.22
