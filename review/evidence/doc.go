// Package evidence gathers the evidence a debate argues from. It holds the model of a change
// (change.go: files, hunks, lines, and the base and head trees when they can be had), the
// Analyzer interface and the Scan analyzers report into (scan.go), the catalog of rules
// (rules.go), and one file per analyzer family:
//
//   - typed.go, runner.go, checks.go, gosec.go, compare.go: the type-checked analysis of whole
//     trees. It loads the Go packages a change touches in the base and head trees with
//     golang.org/x/tools/go/packages, runs maintained go/analysis analyzers over them (the
//     x/tools passes that find bugs, staticcheck's SA checks, gosec's AST rules and SSA taint
//     rules, used as libraries), and keeps only the findings the change made new;
//   - debatebot.go, lockorder.go, loopcost.go: the project's own go/analysis analyzers run
//     beside them (fields read before their mutex is locked, queries per loop iteration);
//   - summary.go, weakened.go: the comparison of base and head for protections the change
//     removed (checks before sensitive calls, an http.Client's redirect policy, lock order);
//     paths.go, the conditions under
//     which a finding's line runs, so that a finding the change made reachable on more paths is
//     new; and placeholders.go, the value flow that tells generated SQL placeholders from SQL
//     built from input;
//   - secrets.go: gitleaks' detector, and the redaction of every text that leaves the process;
//   - goast.go, goflow.go, golines.go: Go checks that need no type information (a diff alone,
//     or dependencies that do not resolve offline);
//   - lines.go: line rules for the languages no analyzer here reads;
//   - change_rules.go: facts about the change as a whole (tests, dependencies, removed API,
//     size) and text addressed to an AI reviewer.
//
// Package review reads changes into this model and debates what the analyzers found.
package evidence
