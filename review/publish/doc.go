// Package publish posts a debate on GitHub: the comments it edits in place, the check run and its
// annotations, the inline review and its threads, labels and issues, all through a client whose
// transport redacts secrets from every request body.
package publish
