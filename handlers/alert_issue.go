package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review"
	"github.com/debatebot/debatebot/review/render"
)

// The alert issues of a repository are kept in the store's publications:
//
//   - under "owner/repo#alerts", each alert's marker (AlertMarker) names the issue it was filed
//     in, and each group's marker (alertGroupMarker) the group's open issue, or -(Unix seconds)
//     while a worker is opening it;
//   - under "owner/repo#alert-issue-N", each alert filed in issue N is alertOpen until it is
//     fixed (alertFixed) or dismissed (alertDismissed): the issue is closed when none is open;
//   - under "owner/repo#alert-slots", slot-1 ... slot-max_alert_issues name the open issues:
//     a group's first alert takes a free slot or opens no issue;
//   - under "owner/repo#alerts-withheld", each alert that opened no issue is the reason why
//     (alertWithheldPublic, alertWithheldCap).
const (
	alertOpen      = 1
	alertFixed     = 0
	alertDismissed = 2

	alertWithheldPublic = 1
	alertWithheldCap    = 2

	// alertClaimStale is how long another worker's claim on a group or slot is waited for
	// before it is taken as the claim of a worker that died.
	alertClaimStale = 2 * time.Minute
)

// errAlertIssuePending is a group's issue being opened by another worker: the job is tried again.
var errAlertIssuePending = errors.New("another worker is opening the issue of this alert's group")

// alertLocks holds one repository's alert jobs one at a time in this process (the store's
// claims order them across replicas).
var alertLocks keyedMutex

type keyedMutex struct{ m sync.Map }

func (k *keyedMutex) lock(key string) (unlock func()) {
	mu, _ := k.m.LoadOrStore(key, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	return mu.(*sync.Mutex).Unlock
}

func alertsKey(repo string) string              { return repo + "#alerts" }
func alertSlotsKey(repo string) string          { return repo + "#alert-slots" }
func alertIssueKey(repo string, n int64) string { return fmt.Sprintf("%s#alert-issue-%d", repo, n) }

// alertGroup is the name of an alert's group, shown in its issue.
func alertGroup(a *Alert) string {
	if a.Group != "" {
		return a.Group
	}
	return strings.TrimSpace(a.Tool + " " + a.Rule)
}

// alertGroupMarker names an alert group's issue in the store and in the issue's body.
func alertGroupMarker(a *Alert) string {
	sum := sha256.Sum256([]byte(a.Kind + "\x00" + alertGroup(a)))
	return "alert-group-" + a.Kind + "-" + hex.EncodeToString(sum[:8])
}

// groupIssue returns the open issue of the job's alert group, opening it (opened) when there
// is none and a slot is free; 0 when the cap is reached.
func (r *Runner) groupIssue(ctx context.Context, gh alertGitHub, job *Job, limit int) (number int64, opened bool, err error) {
	a, repo := job.Alert, job.PR.Repository()
	key, group := alertsKey(repo), alertGroupMarker(a)
	now := time.Now().Unix()
	cur, claimed, err := r.Store.ClaimPublication(ctx, key, group, -now)
	if err != nil {
		return 0, false, err
	}
	if !claimed {
		if cur > 0 {
			return cur, false, nil
		}
		if time.Duration(now+cur)*time.Second < alertClaimStale {
			return 0, false, errAlertIssuePending
		}
		if ok, err := r.Store.SwapPublication(ctx, key, group, cur, -now); err != nil || !ok {
			return 0, false, errors.Join(errAlertIssuePending, err)
		}
	}
	release := func(marker, k string) {
		if err := r.Store.DeletePublication(context.WithoutCancel(ctx), k, marker); err != nil {
			zerolog.Ctx(ctx).Warn().Err(err).Str("marker", marker).Msg("A claim on an alert issue was not released; it lapses in 2 minutes.")
		}
	}
	slot, err := r.claimAlertSlot(ctx, gh, job.PR, limit, now)
	if err != nil || slot == "" {
		release(group, key)
		if err == nil {
			r.withholdAlert(ctx, job, "cap", fmt.Sprintf("%d issues are open for alerts (max_alert_issues)", limit))
		}
		return 0, false, err
	}
	body := fmt.Sprintf("<!-- debatebot:%s -->\nGitHub raised security alerts on the default branch; debatebot debates them here (`alerts: issue` in `%s`). Every alert of %s is listed below, and this issue is closed when all of them are fixed or dismissed.\n\n- severity: %s\n\n%s\n",
		group, config.RepoPath, inlineCode(alertGroup(a), 200), inlineCode(a.Severity, 40), alertLine(a, ""))
	issue, err := gh.CreateIssue(ctx, job.PR, truncateUTF8("Security alerts: "+alertGroup(a), 200), body)
	if err != nil {
		release(group, key)
		release(slot, alertSlotsKey(repo))
		return 0, false, err
	}
	number = int64(issue)
	if err := r.Store.SavePublication(ctx, alertSlotsKey(repo), slot, number); err != nil {
		return 0, false, err
	}
	return number, true, r.Store.SavePublication(ctx, key, group, number)
}

// claimAlertSlot takes a free slot for a new alert issue, or returns "" when limit issues are
// open. At the cap, the issues someone closed on GitHub, and claims of workers that died,
// give their slots back first.
func (r *Runner) claimAlertSlot(ctx context.Context, gh alertGitHub, pr review.PullRequest, limit int, now int64) (string, error) {
	key := alertSlotsKey(pr.Repository())
	slots, err := r.Store.Publications(ctx, key)
	if err != nil {
		return "", err
	}
	if len(slots) >= limit {
		if err := r.reclaimAlertSlots(ctx, gh, pr, slots, now); err != nil {
			return "", err
		}
		if slots, err = r.Store.Publications(ctx, key); err != nil || len(slots) >= limit {
			return "", err
		}
	}
	for i := 1; i <= limit; i++ {
		slot := fmt.Sprintf("slot-%d", i)
		if _, taken := slots[slot]; taken {
			continue
		}
		if _, claimed, err := r.Store.ClaimPublication(ctx, key, slot, -now); err != nil || claimed {
			return slot, err
		}
	}
	return "", nil
}

// reclaimAlertSlots frees the slots of issues closed on GitHub (by someone, not by an alert's
// end) and of stale claims.
func (r *Runner) reclaimAlertSlots(ctx context.Context, gh alertGitHub, pr review.PullRequest, slots map[string]int64, now int64) error {
	for slot, n := range slots {
		if n <= 0 {
			if time.Duration(now+n)*time.Second >= alertClaimStale {
				// Taken over before it is freed: another replica may have taken it over first.
				ok, err := r.Store.SwapPublication(ctx, alertSlotsKey(pr.Repository()), slot, n, -now)
				if err != nil {
					return err
				}
				if ok {
					if err := r.Store.DeletePublication(ctx, alertSlotsKey(pr.Repository()), slot); err != nil {
						return err
					}
				}
			}
			continue
		}
		is, err := gh.Issue(ctx, pr, int(n))
		var er *github.ErrorResponse
		gone := errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == http.StatusNotFound || er.Response.StatusCode == http.StatusGone)
		if err != nil && !gone {
			return fmt.Errorf("failed to read alert issue #%d of %s: %w", n, pr.Repository(), err)
		}
		if gone || is.GetState() == "closed" {
			if err := r.forgetAlertIssue(ctx, pr.Repository(), n); err != nil {
				return err
			}
		}
	}
	return nil
}

// forgetAlertIssue frees the slot and the group of a closed alert issue: the group's next alert
// opens a new one.
func (r *Runner) forgetAlertIssue(ctx context.Context, repo string, n int64) error {
	for _, key := range []string{alertsKey(repo), alertSlotsKey(repo)} {
		pubs, err := r.Store.Publications(ctx, key)
		if err != nil {
			return err
		}
		for marker, v := range pubs {
			if v == n && (strings.HasPrefix(marker, "alert-group-") || strings.HasPrefix(marker, "slot-")) {
				if err := r.Store.DeletePublication(ctx, key, marker); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// alertChecklist writes the alert's line in its issue's list: open, or ticked as ended.
func (r *Runner) alertChecklist(ctx context.Context, gh alertGitHub, pr review.PullRequest, number int64, a *Alert, ended string) error {
	is, err := gh.Issue(ctx, pr, int(number))
	if err != nil {
		return fmt.Errorf("failed to read alert issue #%d of %s: %w", number, pr.Repository(), err)
	}
	body, tag, line := is.GetBody(), alertTag(a), alertLine(a, ended)
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	found := false
	for i, l := range lines {
		if strings.HasSuffix(l, tag) {
			lines[i], found = line, true
		}
	}
	if !found {
		lines = append(lines, line)
	}
	next := strings.Join(lines, "\n") + "\n"
	if next == body {
		return nil
	}
	next = render.FitComment(next, render.MaxCommentChars, "")
	if err := gh.EditIssueBody(ctx, pr, int(number), next); err != nil {
		return fmt.Errorf("failed to list alert %s in issue #%d of %s: %w", AlertMarker(a), number, pr.Repository(), err)
	}
	return nil
}

func alertTag(a *Alert) string { return "<!-- debatebot:" + AlertMarker(a) + " -->" }

// alertLine is the alert's line in its issue's list.
func alertLine(a *Alert, ended string) string {
	box, status := "[ ]", ""
	if ended != "" {
		box, status = "[x]", " ("+strings.ReplaceAll(ended, "_", " ")+")"
	}
	what := a.Tool
	if what == "" {
		what = a.Kind
	}
	where := a.Path
	if a.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, a.Line)
	}
	msg := strings.Join(strings.Fields(a.Message), " ")
	if a.Rule != "" {
		msg = a.Rule + ": " + msg
	}
	link := strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E").Replace(a.URL)
	return fmt.Sprintf("- %s [%s alert #%d](%s)%s %s: %s %s", box, inlineCode(what, 40), a.Number, link, status,
		inlineCode(where, 200), inlineCode(msg, 300), alertTag(a))
}
