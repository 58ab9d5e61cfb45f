package handlers

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review"
	"github.com/palantir/go-githubapp/githubapp"
)

type codeScanningAlertPayload struct {
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

func (p *codeScanningAlertPayload) validate() error {
	return validateInstalled(p.Repository.slimRepo, p.Installation.ID)
}

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
		al := &Alert{Alert: review.Alert{Kind: "code_scanning", Number: a.Number, Tool: a.Tool.Name, Rule: a.Rule.ID, Severity: sev,
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
		al := &Alert{DefaultBranch: true, Alert: review.Alert{Kind: "dependabot", Number: a.Number, Tool: "Dependabot", Rule: id, Severity: a.SecurityAdvisory.Severity,
			Message: truncate(msg, 2000), Path: a.Dependency.ManifestPath, URL: a.HTMLURL},
			Visibility: e.Repository.visibility(), Group: strings.TrimSpace("Dependabot " + a.Dependency.Package.Ecosystem + " " + a.Dependency.Package.Name)}
		job = &Job{DeliveryID: deliveryID, Trigger: eventType + "." + e.Action, Installation: e.Installation.ID, Kind: KindAlert, PR: e.Repository.pr(0), Alert: al}
	}
	if closingActions[action] != "" {
		job.Alert.Closed = action
	}
	return h.enqueue(logContext(ctx, job.Installation, job.PR), job)
}
