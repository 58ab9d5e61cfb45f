package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/dashboard"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/pull"
	"github.com/debatebot/debatebot/toulmin"
)

// dashboardCheckpoints answers checkpoints from the dashboard's buttons exactly as the comment
// commands do: the same permission (command_permission, asked of GitHub with the App's
// installation token), and the same job, KindCheckpoint with the user as its requester, which
// the runner holds as it holds "/debate continue|guide TEXT|end" (it checks the permission again,
// records the answer in the store, enqueues the resumption and says so on the pull request).
type dashboardCheckpoints struct{ r *Runner }

var _ dashboard.Checkpoints = dashboardCheckpoints{}

// debateJob reads the job a debate ran in: its installation and pull request.
func (c dashboardCheckpoints) debateJob(ctx context.Context, debateID string) (*Job, error) {
	d, err := c.r.Store.Debate(ctx, debateID)
	if err != nil {
		return nil, err
	}
	sj, err := c.r.Store.Job(ctx, d.JobID)
	if err != nil {
		return nil, fmt.Errorf("failed to read the job of debate %s: %w", debateID, err)
	}
	var job Job
	if err := json.Unmarshal(sj.Payload, &job); err != nil {
		return nil, fmt.Errorf("failed to read the job of debate %s: %w", debateID, err)
	}
	return &job, nil
}

// Permission implements dashboard.Checkpoints.
func (c dashboardCheckpoints) Permission(ctx context.Context, debateID, login string) (bool, string, string, error) {
	job, err := c.debateJob(ctx, debateID)
	if err != nil {
		return false, "", "", err
	}
	gh, err := c.r.Clients.NewInstallationClient(job.Installation)
	if err != nil {
		return false, "", "", fmt.Errorf("failed to create a client for installation %d: %w", job.Installation, err)
	}
	api := review.NewGitHub(gh)
	repo, err := c.r.commandConfig(ctx, api, job)
	if err != nil {
		return false, "", "", err
	}
	have, err := pull.Permission(ctx, api, job.PR, login)
	if err != nil {
		return false, "", "", err
	}
	return config.PermissionAtLeast(have, repo.CommandPermission), repo.CommandPermission, have, nil
}

// Answer implements dashboard.Checkpoints: it enqueues the job a comment command would.
func (c dashboardCheckpoints) Answer(ctx context.Context, debateID, login string, action toulmin.CheckpointAction, guidance string) error {
	job, err := c.debateJob(ctx, debateID)
	if err != nil {
		return err
	}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return fmt.Errorf("failed to name the dashboard's answer: %w", err)
	}
	answer := &Job{
		// One job per click, as one per comment: a second click finds the checkpoint answered.
		DeliveryID: "dashboard/" + debateID + "/" + hex.EncodeToString(nonce), Trigger: "dashboard.checkpoint", Kind: KindCheckpoint,
		Installation: job.Installation, PR: job.PR, Requester: login, Protocol: string(action), Body: guidance,
	}
	if _, _, err := c.r.Enqueue(ctx, answer); err != nil {
		return fmt.Errorf("failed to enqueue the answer to debate %s: %w", debateID, err)
	}
	return nil
}
