// Package local is the review pipeline on this machine (`debatebot debate`): a diff, a git range
// or a question as its source, kept in the local store after every phase for --resume and
// --list, printed on stdout as markdown, JSON or SARIF, with the terminal's answers at
// checkpoints.
package local
