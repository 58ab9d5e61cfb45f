package render

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// SARIFOptions say who produced a SARIF log.
type SARIFOptions struct {
	// Version of debatebot, for the tool driver.
	Version string
	// InformationURI is where users learn about the tool.
	InformationURI string
}

// FingerprintKey is the partialFingerprints key of each result: GitHub code scanning matches
// results across runs by it, so it must stay the same when lines move.
const FingerprintKey = "primaryLocationLineHash"

// SARIF renders the debate's standing findings as a SARIF 2.1.0 log with one run: a rule per
// rule that found something (with properties.tags, and "security-severity" on security rules
// as GitHub code scanning reads it), and a result per finding with its level, message, location
// (a path relative to the repository root and the line) and a fingerprint that does not depend
// on the line number. c is the change debated (nil for a question); it supplies the line text and
// the enclosing functions the fingerprints are made of. Findings that name no file (the change's
// title, description or commit messages) cannot be located: they are listed as notifications of
// the run's invocation.
func SARIF(t *toulmin.Transcript, c *change.Change, opts SARIFOptions) ([]byte, error) {
	report, err := sarif.New(sarif.Version210)
	if err != nil {
		return nil, fmt.Errorf("failed to start a SARIF log: %w", err)
	}
	uri := opts.InformationURI
	if uri == "" {
		uri = "https://github.com/debatebot/debatebot"
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	run := sarif.NewRunWithInformationURI("debatebot", uri)
	run.Tool.Driver.WithVersion(version)

	findings := StandingFindings(t)
	// Rules first, in a stable order, so that results point at them by index.
	worst := map[string]voting.Severity{}
	stakeholders := map[string]string{}
	for _, e := range findings {
		if e.Path == "" {
			continue
		}
		if s, ok := worst[e.Rule]; !ok || e.Severity.Rank() > s.Rank() {
			worst[e.Rule] = e.Severity
		}
		if stakeholders[e.Rule] == "" {
			stakeholders[e.Rule] = e.Stakeholder
		}
	}
	ids := make([]string, 0, len(worst))
	for id := range worst {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		addRule(run, id, stakeholders[id], worst[id])
	}

	fp := newFingerprinter(c)
	var notes []*sarif.Notification
	for _, e := range findings {
		msg := e.Message
		if msg == "" {
			msg = rules.Rules[e.Rule].Title
		}
		if e.Path == "" {
			notes = append(notes, sarif.NewNotification().WithLevel(sarifLevel(e.Severity)).
				WithMessage(sarif.NewTextMessage(fmt.Sprintf("[%s] %s", e.Rule, msg))).
				WithAssociatedRule(sarif.NewReportingDescriptorReference().WithId(e.Rule)))
			continue
		}
		line := e.Line
		if line < 1 {
			line = 1 // a finding about a whole file sits on its first line
		}
		loc := sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewSimpleArtifactLocation(strings.TrimPrefix(e.Path, "/"))).
			WithRegion(sarif.NewRegion().WithStartLine(line))
		r := run.CreateResultForRule(e.Rule).
			WithLevel(sarifLevel(e.Severity)).
			WithMessage(sarif.NewTextMessage(msg)).
			WithLocations([]*sarif.Location{sarif.NewLocationWithPhysicalLocation(loc)}).
			WithPartialFingerPrints(map[string]any{FingerprintKey: fp.fingerprint(e)})
		r.Properties = sarif.Properties{"severity": string(e.Severity), "analyzer": e.Analyzer, "stakeholder": e.Stakeholder}
	}
	inv := run.AddInvocation(true)
	if len(notes) > 0 {
		inv.ToolExecutionNotifications = notes
	}
	report.AddRun(run)
	var buf bytes.Buffer
	if err := report.PrettyWrite(&buf); err != nil {
		return nil, fmt.Errorf("failed to write the SARIF log: %w", err)
	}
	return buf.Bytes(), nil
}

// addRule describes a rule: its title, warrant and fix from the catalog, its tags, and for
// security rules the severity code scanning ranks alerts by.
func addRule(run *sarif.Run, id, stakeholder string, worst voting.Severity) {
	r, known := rules.Rules[id]
	sev := worst
	if known && r.Severity.Valid() && r.Severity.Rank() > sev.Rank() {
		sev = r.Severity
	}
	title := r.Title
	if title == "" {
		title = id
	}
	rule := run.AddRule(id).WithName(ruleName(id)).WithDescription(title).
		WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(sev)))
	if r.Warrant != "" {
		rule.WithFullDescription(sarif.NewMultiformatMessageString(r.Warrant))
	}
	var help []string
	if r.Fix != "" {
		help = append(help, "Fix: "+r.Fix+".")
	}
	if r.Reference != "" {
		help = append(help, "Reference: "+r.Reference+".")
	}
	if len(help) > 0 {
		rule.WithTextHelp(strings.Join(help, "\n"))
	}
	if c, ok := checksByRule[id]; ok && c.URL != "" {
		rule.WithHelpURI(c.URL)
	}
	tags := RuleTags(id, stakeholder)
	props := sarif.Properties{"tags": tags, "precision": precision(id)}
	for _, tag := range tags {
		if tag == TagSecurity {
			props["security-severity"] = SecuritySeverity(sev)
		}
	}
	rule.WithProperties(props)
}

// precision says how far a rule's results can be trusted, as code scanning shows it.
func precision(rule string) string {
	if _, ok := checksByRule[rule]; ok {
		return "high" // type-checked, over the whole tree
	}
	return "medium" // patterns over the change
}

// ruleName turns a rule id into the PascalCase name SARIF viewers show ("sql-injection" ->
// "SqlInjection").
func ruleName(id string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(id, func(r rune) bool { return r == '-' || r == '_' || r == '/' || r == ' ' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	if b.Len() == 0 {
		return id
	}
	return b.String()
}
