// Package pull is a pull request as the review pipeline's source and destination, shared by the
// App and the Action: the repository configuration on its base branch, the permission of a
// commenter and the command in a comment, and publishing a decided debate on it (the transcript
// and decision comments, the check run, the inline review, the escalation label), through a
// GitHub client that retries what may pass. What it reads of GitHub it reads through small
// interfaces (ConfigReader, Permissions, MergeBaser, SinceReader) that review.GitHub implements
// over the API and pulltest fakes.
package pull
