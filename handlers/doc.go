// Package handlers is the GitHub App: it turns GitHub deliveries into jobs and holds them.
//
//   - server.go wires the App, in one place (New): clients, store, runner, queue, handlers, routes.
//   - webhook.go guards deliveries before go-githubapp's dispatcher: headers, size, memory,
//     signature.
//   - event_*.go: one handler per webhook event, which decodes the fields it routes on, guards
//     and enqueues a Job; nothing slow runs in a handler. event.go is what they share (Base),
//     ci_payload.go and alert_payload.go what the CI and the alert events share.
//   - queue.go is the durable queue, which dedupes and supersedes jobs and gives them to workers.
//   - runner.go holds a job: it dispatches it by kind to its file, job_<kind>.go (review_job.go
//     for KindReview and KindDesign), each a short sequence of named stages; the parts they share
//     are beside them (command.go, answers.go, budget.go, dialectic.go, ci_log.go,
//     failure_count.go, failure_debate.go, alert_issue.go, trees.go).
package handlers
