// Package changetest builds changes for tests: the text of git diffs that add files, changes
// made from the base and head contents of files (as a diff with unlimited context would show
// them, or as a bare diff shows them), and files written into test trees. It imports only the
// change model, so that every package's tests may use it, the evidence packages' own included.
package changetest
