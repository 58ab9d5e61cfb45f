package handlers

import (
	"context"
	"fmt"
	"strings"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/debatebot/debatebot/review/evidence"
)

// dependabotAlertPayload is what the handler reads of a dependabot_alert delivery: the fields it
// routes on.
type dependabotAlertPayload struct {
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

// validate refuses a delivery without the fields the job is routed by.
func (p *dependabotAlertPayload) validate() error {
	return validateInstalled(p.Repository.slimRepo, p.Installation.ID)
}

// DependabotAlert handles dependabot_alert deliveries: Dependabot alerts are about the default
// branch's manifests, so each is a KindAlert job.
type DependabotAlert struct{ Base }

var _ githubapp.EventHandler = &DependabotAlert{}

// Handles implements githubapp.EventHandler.
func (h *DependabotAlert) Handles() []string { return []string{"dependabot_alert"} }

// Handle implements githubapp.EventHandler.
func (h *DependabotAlert) Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error {
	var e dependabotAlertPayload
	if err := decode(payload, &e, eventType); err != nil {
		return err
	}
	if !handledAlertAction(e.Action) {
		return nil
	}
	return h.enqueueAlert(ctx, &Job{DeliveryID: deliveryID, Trigger: eventType + "." + e.Action, Installation: e.Installation.ID,
		Kind: KindAlert, PR: e.Repository.pr(0), Alert: e.alert()}, e.Action)
}

// alert is the alert a delivery names: the advisory's ids, the vulnerable package and the first
// patched version.
func (e *dependabotAlertPayload) alert() *Alert {
	a := e.Alert
	id := a.SecurityAdvisory.GHSAID
	if a.SecurityAdvisory.CVEID != "" {
		id += " / " + a.SecurityAdvisory.CVEID
	}
	msg := fmt.Sprintf("%s %s %s is vulnerable: %s", a.Dependency.Package.Ecosystem, a.Dependency.Package.Name, a.SecurityVulnerability.VulnerableVersionRange, a.SecurityAdvisory.Summary)
	if p := a.SecurityVulnerability.FirstPatchedVersion; p != nil && p.Identifier != "" {
		msg += "; first patched version " + p.Identifier
	}
	return &Alert{DefaultBranch: true, Alert: evidence.Alert{Kind: "dependabot", Number: a.Number, Tool: "Dependabot", Rule: id, Severity: a.SecurityAdvisory.Severity,
		Message: truncate(msg, 2000), Path: a.Dependency.ManifestPath, URL: a.HTMLURL},
		Visibility: e.Repository.visibility(), Group: strings.TrimSpace("Dependabot " + a.Dependency.Package.Ecosystem + " " + a.Dependency.Package.Name)}
}
