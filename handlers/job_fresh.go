package handlers

import (
	"context"
	"fmt"
	"strings"

	"github.com/debatebot/debatebot/review/publish"
)

// fresh holds "/debate fresh": a commenter with command_permission resets every failure count
// of the pull request (seed 000: "start fresh").
func (r *Runner) fresh(ctx context.Context, gh commandGitHub, pub *publish.Publisher, job *Job) error {
	repo, err := r.commandConfig(ctx, gh, job)
	if err != nil {
		return err
	}
	if ok, err := r.permitted(ctx, gh, pub, job, repo.CommandPermission, "`/debate fresh`", "Nothing was changed."); !ok {
		return err
	}
	tasks, err := r.Store.FailureTasks(ctx, job.PR.String())
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tasks {
		ok, err := r.Store.ResetTask(ctx, job.PR.String(), t.TaskID)
		if err != nil {
			return err
		}
		if ok {
			names = append(names, "`"+strings.ReplaceAll(t.Task, "`", "'")+"`")
		}
	}
	if len(names) == 0 {
		return r.refuse(ctx, gh, pub, job, fmt.Sprintf("@%s: no task of this pull request is counting failures; `/debate fresh` changed nothing.", job.Requester))
	}
	return pub.Comment(ctx, fmt.Sprintf("@%s started fresh: the failure counts of %s are reset.", job.Requester, strings.Join(names, ", ")))
}
