// Package publish posts a debate on GitHub: the comments it edits in place, the check run and its
// annotations, the inline review and its threads, labels and issues, all through a client whose
// transport redacts secrets from every request body. Its transport.go is also the retrying
// transport of the App's and the Action's GitHub clients.
package publish
