// Package change is the model of a change under review: its files, hunks and lines, what the
// diff shows of each side, and, when they can be had, the base and head trees (Change.Trees).
// Its sources (a local diff, a git range, a pull request) read changes into this model in
// package review; the analyzers of review/evidence and the debate read it.
package change
