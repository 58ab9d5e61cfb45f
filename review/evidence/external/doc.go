// Package external runs the analyzers of other languages as programs (bandit, pyflakes,
// pylint, ESLint, ShellCheck, Cppcheck) over a change's files in its base and head trees, reads
// their reports and keeps the findings new in head; Analyzer reports them into a scan.
package external
