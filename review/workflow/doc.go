// Package workflow runs the review pipeline inside a GitHub Actions workflow: it reads the
// workflow's environment and event, admits the event's pull request under the configuration of
// its base branch, reads its change from the checkout (else through the API) as the pipeline's
// source, and publishes the debate with the workflow token as the App does, with the job
// summary, workflow commands and stdout beside it.
package workflow
