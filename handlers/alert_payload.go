package handlers

import "context"

// alertRepo is the repository of an alert delivery, with its visibility.
type alertRepo struct {
	slimRepo
	DefaultBranch string `json:"default_branch"`
	Private       *bool  `json:"private"`
	Visibility    string `json:"visibility"`
}

// visibility is what the delivery says of the repository's visibility, empty when it says
// nothing that settles it (private without a visibility may be internal).
func (r alertRepo) visibility() string { return visibilityOf(r.Visibility, r.Private) }

// alertActions are the actions that put an alert in front of someone. closingActions end one:
// they start no debate, and close the issue opened for a default-branch alert, as completed
// when the alert was fixed and as not planned when someone dismissed it.
var (
	alertActions   = map[string]bool{"created": true, "reopened": true, "appeared_in_branch": true, "reintroduced": true, "auto_reopened": true}
	closingActions = map[string]string{"fixed": "completed", "closed_by_user": "not_planned", "dismissed": "not_planned", "auto_dismissed": "not_planned"}
)

// handledAlertAction reports whether an alert delivery's action is one the App acts on: one that
// puts the alert in front of someone or one that ends it.
func handledAlertAction(action string) bool {
	return alertActions[action] || closingActions[action] != ""
}

// enqueueAlert enqueues an alert delivery's job; a closing action marks its alert closed.
func (b *Base) enqueueAlert(ctx context.Context, job *Job, action string) error {
	if closingActions[action] != "" {
		job.Alert.Closed = action
	}
	return b.Queue.Deliver(logContext(ctx, job.Installation, job.PR), job)
}
