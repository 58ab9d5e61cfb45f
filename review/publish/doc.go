// Package publish posts a debate on GitHub: a decided debate's publication (PublishDebate: the
// summary and decision comments, the inline review, the check run's conclusion, the escalation
// label, each write retried while it may pass and remembered so that a retried job does not
// repeat it), the comments it edits in place, the check run and its annotations, the inline
// review and its threads, labels and issues, all through a client whose transport redacts
// secrets from every request body. github.go holds every GitHub call the publisher makes;
// inline.go plans the inline review (which findings are new, which lines GitHub takes) without
// calling GitHub, annotations.go and render turn findings into what is posted. Its transport.go is also the retrying transport of the App's
// and the Action's GitHub clients.
package publish
