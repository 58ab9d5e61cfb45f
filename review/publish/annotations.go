package publish

import (
	"context"

	"github.com/google/go-github/v62/github"
	"github.com/rs/zerolog"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
)

// annotationsOf are the annotations of the debate's standing findings that have no review
// comment on their line, so that GitHub shows each finding once in a pull request's files. When
// this publisher posted no review (a retried publication whose review was posted before), the
// pull request's review comments tell which findings have one.
func (p *Publisher) annotationsOf(ctx context.Context, t *toulmin.Transcript) []*github.CheckRunAnnotation {
	if p.inlined == nil && t.Record.HeadSHA != "" && t.Record.Synthesis == nil {
		threads, _, err := p.reviewThreads(ctx)
		if err != nil {
			// Not knowing which findings have a comment is no reason to leave the check run
			// unconcluded: every finding is annotated, as none would be lost.
			zerolog.Ctx(ctx).Warn().Err(err).Msg("Could not list the review comments; annotating every standing finding.")
		}
		p.inlined = map[string]bool{}
		for key := range threads {
			p.inlined[key] = true
		}
	}
	standing, keys := render.StandingFindings(t), render.FindingKeys(t)
	var left []toulmin.Evidence
	for i, e := range standing {
		if !p.inlined[keys[i]] {
			left = append(left, e)
		}
	}
	return Annotations(left)
}

// Annotations turns findings into check-run annotations, in their order: each on its file and
// line (a finding about a whole file on its first line), failure for high and critical findings,
// warning for medium, notice below, titled with the rule and saying what to do. Findings that
// name no file (the title, the description, commit messages) cannot be annotated; the review's
// body and the debate's page carry them.
func Annotations(findings []toulmin.Evidence) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for _, e := range findings {
		if e.Path == "" {
			continue
		}
		line := max(e.Line, 1)
		rule := rules.Rules[e.Rule]
		title := e.Rule
		if rule.Title != "" {
			title = rule.Title + " (" + e.Rule + ")"
		}
		msg := e.Message
		if rule.Fix != "" {
			msg += "\n\nFix: " + rule.Fix
		}
		out = append(out, &github.CheckRunAnnotation{
			Path: github.String(e.Path), StartLine: github.Int(line), EndLine: github.Int(line),
			AnnotationLevel: github.String(render.AnnotationLevel(e.Severity)),
			Message:         github.String(scan.Clip(msg, 4000)), Title: github.String(scan.Clip(title, 255)),
		})
	}
	return out
}
