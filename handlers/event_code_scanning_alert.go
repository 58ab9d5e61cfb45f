package handlers

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/debatebot/debatebot/review/evidence"
)

// codeScanningAlertPayload is what the handler reads of a code_scanning_alert delivery: the fields
// it routes on.
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

// validate refuses a delivery without the fields the job is routed by.
func (p *codeScanningAlertPayload) validate() error {
	return validateInstalled(p.Repository.slimRepo, p.Installation.ID)
}

// pullRef reads the pull request of a code scanning ref: refs/pull/N/merge or refs/pull/N/head.
var pullRef = regexp.MustCompile(`^refs/pull/(\d+)/(?:merge|head)$`)

// CodeScanningAlert handles code_scanning_alert deliveries: an alert on the default branch is a
// KindAlert job, one on a pull request's ref runs the pull request's debate again with it.
type CodeScanningAlert struct{ Base }

var _ githubapp.EventHandler = &CodeScanningAlert{}

// Handles implements githubapp.EventHandler.
func (h *CodeScanningAlert) Handles() []string { return []string{"code_scanning_alert"} }

// Handle implements githubapp.EventHandler.
func (h *CodeScanningAlert) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e codeScanningAlertPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	if !handledAlertAction(e.Action) {
		return nil
	}
	al := e.alert()
	ref := e.Ref
	if ref == "" {
		ref = e.Alert.MostRecentInstance.Ref
	}
	job := &Job{DeliveryID: deliveryID, Trigger: eventType + "." + e.Action, Installation: e.Installation.ID, Alert: al}
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
	return h.enqueueAlert(ctx, job, e.Action)
}

// alert is the alert a delivery names, its message and severity as the most specific field
// that has them says.
func (e *codeScanningAlertPayload) alert() *Alert {
	a := e.Alert
	sev := a.Rule.SecuritySeverityLevel
	if sev == "" {
		sev = a.Rule.Severity
	}
	msg := a.MostRecentInstance.Message.Text
	if msg == "" {
		msg = a.Rule.Description
	}
	return &Alert{Alert: evidence.Alert{Kind: "code_scanning", Number: a.Number, Tool: a.Tool.Name, Rule: a.Rule.ID, Severity: sev,
		Message: truncate(msg, 2000), Path: a.MostRecentInstance.Location.Path, Line: a.MostRecentInstance.Location.StartLine, URL: a.HTMLURL},
		Visibility: e.Repository.visibility(), Group: strings.TrimSpace(a.Tool.Name + " " + a.Rule.ID)}
}
