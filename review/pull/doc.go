// Package pull is a pull request as the review pipeline's source, shared by the App and the
// Action: the repository configuration on its base branch, the permission of a commenter and the
// command in a comment, and what changed since the last debated head. What it reads of GitHub it
// reads through small interfaces (ConfigReader, Permissions, MergeBaser, SinceReader) that
// review.GitHub implements over the API and pulltest fakes. Publishing the debate on the pull
// request is review/publish's.
package pull
