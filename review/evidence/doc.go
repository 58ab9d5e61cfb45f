// Package evidence holds the analyzers a debate's evidence comes from: the registry of the
// built-in analyzers (registry.go, DefaultAnalyzers) and the analyses of one tree, one file
// per family:
//
//   - typed.go, runner.go, checks.go, maintained.go, gosec.go, compare.go: the type-checked
//     analysis of whole trees. It loads the Go packages a change touches in the base and head
//     trees with golang.org/x/tools/go/packages (gomodules.go, gopins*.go, gopath*.go,
//     modcache.go, cgo.go: modules and packages loaded offline), runs maintained go/analysis
//     analyzers over them (the x/tools passes that find bugs, staticcheck's SA checks, the
//     maintained linters, gosec's AST rules and SSA taint rules, used as libraries), and keeps
//     only the findings the change made new (processors.go: the comparison chain);
//   - debatebot.go, lockorder.go, loopcost.go: the project's own go/analysis analyzers run
//     beside them (fields read before their mutex is locked, queries per loop iteration);
//   - summary.go, weakened.go: the comparison of base and head for protections the change
//     removed (checks before sensitive calls, an http.Client's redirect policy, lock order);
//     paths.go, the conditions under which a finding's line runs, so that a finding the change
//     made reachable on more paths is new; and placeholders.go, the value flow that tells
//     generated SQL placeholders from SQL built from input;
//   - secrets.go: credentials in added lines (review/evidence/redact finds and masks them);
//   - goast.go, goflow.go, golines.go: Go checks that need no type information (a diff alone,
//     or dependencies that do not resolve offline);
//   - lines.go: line rules for the languages no analyzer here reads;
//   - change_rules.go: facts about the change as a whole (tests, dependencies, removed API,
//     size) and text addressed to an AI reviewer.
//
// Its sub-packages: scan (the Analyzer interface, the Scan analyzers report into, the Finding
// record, the scan's processors and Gather), rules (the catalog of rules and checks), redact
// (secrets found and masked), compare (the comparison of base and head in every language) and
// external (the tools of other languages). The change they read is review/change's.
package evidence
