package handlers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"
	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/evidence"
)

// Alert is a security alert a job carries: on a pull request's head (the pull request's debate
// runs again with it as evidence), or on the default branch (an issue is opened for it when
// debatebot.yml says alerts: issue, and debated).
type Alert struct {
	evidence.Alert
	DefaultBranch bool `json:",omitempty"`
	// Closed is how a default-branch alert ended ("fixed", "dismissed", ...): the issue opened
	// for it is closed once every alert of its group ended.
	Closed string `json:",omitempty"`
	// Visibility is the repository's as the delivery said it ("private", "public",
	// "internal"), empty when it did not: an issue is opened only in a private repository.
	Visibility string `json:",omitempty"`
	// Group names the alerts that share one issue: the tool and rule of a code scanning alert,
	// the ecosystem and package of a Dependabot alert.
	Group string `json:",omitempty"`
}

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

// visibilityOf is a repository's visibility from its visibility and private fields, empty when
// they do not settle it (private without a visibility may be internal).
func visibilityOf(visibility string, private *bool) string {
	switch {
	case visibility != "":
		return strings.ToLower(visibility)
	case private != nil && !*private:
		return "public"
	}
	return ""
}

type (
	codeScanningAlertPayload struct {
		Action       string           `json:"action"`
		Ref          string           `json:"ref"`
		Installation slimInstallation `json:"installation"`
		Repository   alertRepo        `json:"repository"`
		Alert        struct {
			Number  int    `json:"number"`
			HTMLURL string `json:"html_url"`
			Rule    struct {
				ID                    string `json:"id"`
				Severity              string `json:"severity"`
				SecuritySeverityLevel string `json:"security_severity_level"`
				Description           string `json:"description"`
			} `json:"rule"`
			Tool struct {
				Name string `json:"name"`
			} `json:"tool"`
			MostRecentInstance struct {
				Ref      string `json:"ref"`
				Location struct {
					Path      string `json:"path"`
					StartLine int    `json:"start_line"`
				} `json:"location"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"most_recent_instance"`
		} `json:"alert"`
	}
	dependabotAlertPayload struct {
		Action       string           `json:"action"`
		Installation slimInstallation `json:"installation"`
		Repository   alertRepo        `json:"repository"`
		Alert        struct {
			Number     int    `json:"number"`
			HTMLURL    string `json:"html_url"`
			Dependency struct {
				Package struct {
					Ecosystem string `json:"ecosystem"`
					Name      string `json:"name"`
				} `json:"package"`
				ManifestPath string `json:"manifest_path"`
			} `json:"dependency"`
			SecurityAdvisory struct {
				GHSAID   string `json:"ghsa_id"`
				CVEID    string `json:"cve_id"`
				Summary  string `json:"summary"`
				Severity string `json:"severity"`
			} `json:"security_advisory"`
			SecurityVulnerability struct {
				VulnerableVersionRange string `json:"vulnerable_version_range"`
				FirstPatchedVersion    *struct {
					Identifier string `json:"identifier"`
				} `json:"first_patched_version"`
			} `json:"security_vulnerability"`
		} `json:"alert"`
	}
)

func (p *codeScanningAlertPayload) validate() error {
	return validateInstalled(p.Repository.slimRepo, p.Installation.ID)
}

func (p *dependabotAlertPayload) validate() error {
	return validateInstalled(p.Repository.slimRepo, p.Installation.ID)
}

// alertActions are the actions that put an alert in front of someone. closingActions end one:
// they start no debate, and close the issue opened for a default-branch alert, as completed
// when the alert was fixed and as not planned when someone dismissed it.
var (
	alertActions   = map[string]bool{"created": true, "reopened": true, "appeared_in_branch": true, "reintroduced": true, "auto_reopened": true}
	closingActions = map[string]string{"fixed": "completed", "closed_by_user": "not_planned", "dismissed": "not_planned", "auto_dismissed": "not_planned"}
)

// pullRef reads the pull request of a code scanning ref: refs/pull/N/merge or refs/pull/N/head.
var pullRef = regexp.MustCompile(`^refs/pull/(\d+)/(?:merge|head)$`)

// SecurityAlert handles code_scanning_alert and dependabot_alert deliveries.
type SecurityAlert struct{ Base }

var _ githubapp.EventHandler = &SecurityAlert{}

// Handles implements githubapp.EventHandler.
func (h *SecurityAlert) Handles() []string {
	return []string{"code_scanning_alert", "dependabot_alert"}
}

// Handle implements githubapp.EventHandler.
func (h *SecurityAlert) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var job *Job
	var action string
	if eventType == "code_scanning_alert" {
		var e codeScanningAlertPayload
		if err := decode(payload, &e, eventType); err != nil {
			return err
		}
		if action = e.Action; !alertActions[action] && closingActions[action] == "" {
			return nil
		}
		a := e.Alert
		sev := a.Rule.SecuritySeverityLevel
		if sev == "" {
			sev = a.Rule.Severity
		}
		msg := a.MostRecentInstance.Message.Text
		if msg == "" {
			msg = a.Rule.Description
		}
		al := &Alert{Alert: evidence.Alert{Kind: "code_scanning", Number: a.Number, Tool: a.Tool.Name, Rule: a.Rule.ID, Severity: sev,
			Message: truncate(msg, 2000), Path: a.MostRecentInstance.Location.Path, Line: a.MostRecentInstance.Location.StartLine, URL: a.HTMLURL},
			Visibility: e.Repository.visibility(), Group: strings.TrimSpace(a.Tool.Name + " " + a.Rule.ID)}
		ref := e.Ref
		if ref == "" {
			ref = a.MostRecentInstance.Ref
		}
		job = &Job{DeliveryID: deliveryID, Trigger: eventType + "." + e.Action, Installation: e.Installation.ID, Alert: al}
		m := pullRef.FindStringSubmatch(ref)
		switch {
		case e.Repository.DefaultBranch != "" && ref == "refs/heads/"+e.Repository.DefaultBranch:
			al.DefaultBranch = true
			job.Kind, job.PR = KindAlert, e.Repository.pr(0)
		case m != nil && closingActions[e.Action] == "":
			// A fix on a pull request's ref is the pull request's own business: only a
			// default-branch alert has an issue to close.
			n, _ := strconv.Atoi(m[1])
			job.Kind, job.PR = KindReview, e.Repository.pr(n)
		default:
			return nil
		}
	} else {
		var e dependabotAlertPayload
		if err := decode(payload, &e, eventType); err != nil {
			return err
		}
		if action = e.Action; !alertActions[action] && closingActions[action] == "" {
			return nil
		}
		a := e.Alert
		id := a.SecurityAdvisory.GHSAID
		if a.SecurityAdvisory.CVEID != "" {
			id += " / " + a.SecurityAdvisory.CVEID
		}
		msg := fmt.Sprintf("%s %s %s is vulnerable: %s", a.Dependency.Package.Ecosystem, a.Dependency.Package.Name, a.SecurityVulnerability.VulnerableVersionRange, a.SecurityAdvisory.Summary)
		if p := a.SecurityVulnerability.FirstPatchedVersion; p != nil && p.Identifier != "" {
			msg += "; first patched version " + p.Identifier
		}
		// Dependabot alerts are about the default branch's manifests.
		al := &Alert{DefaultBranch: true, Alert: evidence.Alert{Kind: "dependabot", Number: a.Number, Tool: "Dependabot", Rule: id, Severity: a.SecurityAdvisory.Severity,
			Message: truncate(msg, 2000), Path: a.Dependency.ManifestPath, URL: a.HTMLURL},
			Visibility: e.Repository.visibility(), Group: strings.TrimSpace("Dependabot " + a.Dependency.Package.Ecosystem + " " + a.Dependency.Package.Name)}
		job = &Job{DeliveryID: deliveryID, Trigger: eventType + "." + e.Action, Installation: e.Installation.ID, Kind: KindAlert, PR: e.Repository.pr(0), Alert: al}
	}
	if closingActions[action] != "" {
		job.Alert.Closed = action
	}
	return h.enqueue(logContext(ctx, job.Installation, job.PR), job)
}

// AlertMarker names the issue opened for an alert on the default branch (kept in the store's
// publications of the repository).
func AlertMarker(a *Alert) string { return fmt.Sprintf("alert-%s-%d", a.Kind, a.Number) }

// alert holds a default-branch alert: with alerts: issue in debatebot.yml (read from the
// default branch), and only in a private repository, the alert is filed in the issue of its
// group (its rule or package), opened for the group's first alert and debated as a design
// question with the alert as evidence and the security stakeholder seated. At most
// max_alert_issues such issues are open at once.
func (r *Runner) alert(ctx context.Context, gh *github.Client, job *Job) error {
	if job.Alert == nil || !job.Alert.DefaultBranch {
		return errors.New("an alert job without a default-branch alert")
	}
	unlock := alertLocks.lock(job.PR.Repository())
	defer unlock()
	if job.Alert.Closed != "" {
		return r.alertClosed(ctx, gh, job)
	}
	repo, err := LoadRepoConfig(ctx, gh, job.PR, "")
	var ce *config.Error
	if errors.As(err, &ce) {
		zerolog.Ctx(ctx).Warn().Err(err).Msg("The repository configuration is broken; the alert is not debated.")
		return nil
	}
	if err != nil {
		return err
	}
	if repo.Alerts != "issue" {
		return nil
	}
	if visibility := r.repoVisibility(ctx, gh, job); visibility != "private" {
		r.withholdAlert(ctx, job, "public_repository", fmt.Sprintf("the repository is %s: an issue would publish what GitHub shows only to maintainers", visibility))
		return nil
	}
	return r.fileAlert(ctx, gh, job, *repo.MaxAlertIssues)
}
