package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/config"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/githubtest"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/review/render"
	"github.com/debatebot/debatebot/toulmin"
)

// wholeDebate is the last decided debate of acme/shop#7 as its page has it: the stored
// transcript in Markdown (the summary comment is short and links there).
func (a *app) wholeDebate() string {
	a.t.Helper()
	ctx := context.Background()
	latest, err := a.srv.Store.LatestDecided(ctx, "acme/shop", 7)
	if err != nil || latest == nil {
		a.t.Fatalf("no decided debate of acme/shop#7 in the store: %v", err)
	}
	d, err := a.srv.Store.Debate(ctx, latest.ID)
	if err != nil {
		a.t.Fatal(err)
	}
	var tr toulmin.Transcript
	if err := json.Unmarshal(d.Checkpoint, &tr); err != nil {
		a.t.Fatalf("the stored debate does not read: %v", err)
	}
	md, err := render.Markdown(&tr, render.Options{})
	if err != nil {
		a.t.Fatal(err)
	}
	return md
}

// conversation is what one push left on acme/shop#7, as a person reads it.
type conversation struct {
	summary, decision string
	inline            []githubtest.ReviewComment
	reviewBodies      []string
	annotations       []githubtest.Annotation
}

func (a *app) conversation() conversation {
	a.t.Helper()
	var c conversation
	tr, dec := a.comments(render.TranscriptMarker), a.comments(render.DecisionMarker)
	if len(tr) != 1 || len(dec) != 1 {
		a.t.Fatalf("%d summary and %d decision comments, want one each", len(tr), len(dec))
	}
	c.summary, c.decision = tr[0].Body, dec[0].Body
	for _, rc := range a.gh.ReviewCommentsOn("acme/shop#7") {
		if rc.InReplyTo == 0 {
			c.inline = append(c.inline, rc)
		}
	}
	for _, r := range a.gh.ReviewsOn("acme/shop#7") {
		c.reviewBodies = append(c.reviewBodies, r.Body)
	}
	for _, run := range a.gh.Checks("acme/shop") {
		c.annotations = append(c.annotations, run.Annotations...)
	}
	return c
}

// figures are the characters the push posted, by place.
func (c conversation) figures() (top, summary, decision, inline, annotations int) {
	top = len(c.summary)
	if i := strings.Index(c.summary, "<details>"); i >= 0 {
		top = i
	}
	for _, rc := range c.inline {
		inline += len(rc.Body)
	}
	for _, b := range c.reviewBodies {
		inline += len(b)
	}
	for _, an := range c.annotations {
		annotations += len(an.Title) + len(an.Message)
	}
	return top, len(c.summary), len(c.decision), inline, annotations
}

var (
	// inlineRuleRe finds the rule of each finding a review comment carries ("(`rule`)").
	inlineRuleRe = regexp.MustCompile("\\(`([a-z0-9-]+)`\\)")
	// bodyFindingRe is a finding listed in a review's body: "- `path[:line]`: what (severity, `rule`)".
	bodyFindingRe = regexp.MustCompile("(?m)^- `([^`:]+)(?::\\d+)?`: .*\\([a-z]+, `([a-z0-9-]+)`\\)")
	// annotationRuleRe is the rule in an annotation's title ("Title (rule)").
	annotationRuleRe = regexp.MustCompile(`\(([a-z0-9-]+)\)$`)
)

// where counts, for each finding ("path rule"), where it appears: on a line (an inline review
// comment), in a review's body, and as an annotation of the check run.
func (c conversation) where() (onLine, inBody, annotated map[string]int) {
	onLine, inBody, annotated = map[string]int{}, map[string]int{}, map[string]int{}
	for _, rc := range c.inline {
		for _, m := range inlineRuleRe.FindAllStringSubmatch(rc.Body, -1) {
			onLine[rc.Path+" "+m[1]]++
		}
	}
	for _, b := range c.reviewBodies {
		for _, m := range bodyFindingRe.FindAllStringSubmatch(b, -1) {
			inBody[m[1]+" "+m[2]]++
		}
	}
	for _, an := range c.annotations {
		if m := annotationRuleRe.FindStringSubmatch(an.Title); m != nil {
			annotated[an.Path+" "+m[1]]++
		}
	}
	return onLine, inBody, annotated
}

// One push of the example change (a SQL injection, two findings on line 47, a finding about a
// whole file that no line of the diff carries), offline and with a model: each finding of
// substance appears exactly once in the review (on its line or in the body, the two on line 47
// in one comment, each with its own required change), annotations are only for findings without
// an inline comment, the summary stays under 3,000 characters above its folds and 12,000 in all,
// and the decision comment is short with the record folded once.
func TestEachFindingOncePerView(t *testing.T) {
	for _, model := range []bool{false, true} {
		t.Run(map[bool]string{false: "offline", true: "model"}[model], func(t *testing.T) {
			a := newAppWith(t, func(cfg *config.Server) {
				cfg.PublicURL = "https://debatebot.example.com"
				if model {
					llm := llmtest.New(t, nil)
					cfg.OpenAIKey, cfg.OpenAIBaseURL = "sk-test", llm.BaseURL()
				}
			})
			a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
			a.srv.Queue.Wait()
			c := a.conversation()
			top, summary, decision, inline, annotations := c.figures()
			t.Logf("characters per push: summary %d (above the folds %d), decision %d, inline %d, annotations %d", summary, top, decision, inline, annotations)
			if top >= 3000 || summary >= 12000 {
				t.Errorf("summary: %d characters above the folds, %d in all; want under 3,000 and 12,000:\n%s", top, summary, c.summary)
			}
			onLine, inBody, annotated := c.where()
			t.Logf("on lines %v; in the review's body %v; annotated %v", onLine, inBody, annotated)
			for _, f := range []string{"internal/export/users.go sql-injection", "internal/export/users.go ignored-error", "internal/export/users.go io-call-in-loop", "internal/export/users.go untested-change"} {
				if n := onLine[f] + inBody[f]; n != 1 {
					t.Errorf("%s appears %d times in the review, want once", f, n)
				}
			}
			if inBody["internal/export/users.go untested-change"] != 1 {
				t.Errorf("the finding about the whole file is not in the review's body: %v", inBody)
			}
			for f, n := range annotated {
				if n != 1 || onLine[f] > 0 {
					t.Errorf("%s annotated %d time(s) and commented on %d line(s): an annotation is only for a finding without an inline comment", f, n, onLine[f])
				}
			}
			for _, f := range []string{"internal/export/users.go untested-change", "go.mod new-dependency"} {
				if annotated[f] != 1 {
					t.Errorf("%s has no inline comment and no annotation: %v", f, annotated)
				}
			}
			checkLine47(t, c)
			checkDecisionComment(t, c)
			for _, body := range []string{c.summary, c.decision} {
				for _, jargon := range []string{"seed", "Seed", "Toulmin", "H.db", "Os.Open"} {
					if strings.Contains(body, jargon) {
						t.Errorf("a comment says %q:\n%s", jargon, body)
					}
				}
			}
			a.checkCalls()
		})
	}
}

// checkLine47 wants the two findings on users.go:47 in one comment, each with its own required
// change under its own heading.
func checkLine47(t *testing.T, c conversation) {
	t.Helper()
	var at47 []githubtest.ReviewComment
	for _, rc := range c.inline {
		if rc.Path == "internal/export/users.go" && rc.Line == 47 {
			at47 = append(at47, rc)
		}
	}
	if len(at47) != 1 {
		t.Fatalf("%d comments on users.go:47, want the two findings in one", len(at47))
	}
	body := at47[0].Body
	ie, io := strings.Index(body, "(`ignored-error`)"), strings.Index(body, "(`io-call-in-loop`)")
	if ie < 0 || io < 0 {
		t.Fatalf("the comment on :47 lacks a finding:\n%s", body)
	}
	first, second := min(ie, io), max(ie, io)
	for _, rc := range []struct{ rule, text string }{{"ignored-error", "handle the error or return it with context"}, {"io-call-in-loop", "fetch in one batched query or request outside the loop"}} {
		i := strings.Index(body, rc.text)
		own := ie
		if rc.rule == "io-call-in-loop" {
			own = io
		}
		if i < 0 {
			continue // not required by this debate (a model may decide otherwise): nothing to misplace
		}
		if (own == first && (i < first || i > second)) || (own == second && i < second) {
			t.Errorf("the required change %q is not under its own finding %s:\n%s", rc.text, rc.rule, body)
		}
	}
}

// checkDecisionComment wants the decision comment short and human: the decision in a sentence,
// the votes, what to do next, and the record folded once; the summary does not repeat the record.
func checkDecisionComment(t *testing.T, c conversation) {
	t.Helper()
	d := c.decision
	fold := strings.Index(d, "<details>")
	if fold < 0 || strings.Count(d, "```yaml") != 1 || strings.Index(d, "```yaml") < fold {
		t.Fatalf("the record is not folded once in the decision comment:\n%s", d)
	}
	if fold > 1500 {
		t.Errorf("the decision comment has %d characters above its record, want a short note:\n%s", fold, d)
	}
	for _, want := range []string{"**Votes**", "**Next**", "core maintainer"} {
		if !strings.Contains(d[:fold], want) {
			t.Errorf("the decision comment lacks %q above its record:\n%s", want, d)
		}
	}
	if strings.Contains(d[:fold], "debate_id:") {
		t.Errorf("raw record above the fold:\n%s", d)
	}
	if strings.Contains(c.summary, "```yaml") || strings.Contains(c.summary, "debate_id") {
		t.Errorf("the summary repeats the record")
	}
}

// TestConversationFigures prints the characters one push posts, offline and with the model fake,
// on the example change and on a bigger one (the example, 25 functions with a SQL injection each,
// and 1,000 lines of ordinary code): the figures the note quotes. With a model, the
// summary stays under 12,000 characters whatever the change's size.
func TestConversationFigures(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	bigger := string(example) + queriesDiff(25) + changetest.LargeDiff(1000)
	for _, change := range []struct{ name, diff string }{{"admin-export", string(example)}, {"bigger", bigger}} {
		for _, model := range []bool{false, true} {
			name := change.name + map[bool]string{false: "/offline", true: "/model"}[model]
			t.Run(name, func(t *testing.T) {
				a := newAppWith(t, func(cfg *config.Server) {
					if model {
						llm := llmtest.New(t, nil)
						cfg.OpenAIKey, cfg.OpenAIBaseURL = "sk-test", llm.BaseURL()
					}
				})
				a.gh.PRs["acme/shop#7"].Diff = change.diff
				a.post("pull_request", "d-1", fixture(t, "pull_request.opened.json", nil), secret)
				a.srv.Queue.Wait()
				c := a.conversation()
				top, summary, decision, inline, annotations := c.figures()
				fmt.Printf("FIGURES %-22s summary %6d (above the folds %5d)  decision %6d  inline %6d  annotations %6d  total %6d\n",
					name, summary, top, decision, inline, annotations, summary+decision+inline+annotations)
				if top >= 3000 || summary >= 12000 {
					t.Errorf("summary: %d characters above the folds, %d in all; want under 3,000 and 12,000", top, summary)
				}
				if !strings.Contains(c.summary, "no public address") {
					t.Errorf("without a public address the summary does not say why the full debate is not linked")
				}
			})
		}
	}
}

// The answer to /help speaks plainly: no internal document names or jargon.
func TestHelpTextIsPlain(t *testing.T) {
	for _, isPR := range []bool{true, false} {
		text := HelpText(config.Default(), isPR, "main", "")
		for _, jargon := range []string{"seed", "Seed", "Toulmin", "toulmin"} {
			if strings.Contains(text, jargon) {
				t.Errorf("/help says %q:\n%s", jargon, text)
			}
		}
		if !strings.Contains(text, "a planning debate over TEXT: an advocate and a critic argue") {
			t.Errorf("/help does not say what a planning debate is:\n%s", text)
		}
	}
}

// A finding on a line the diff does not show (the whole-tree analysis finds a nil dereference the
// change made reachable at api/user.go:19) is one line of the review's body and one annotation,
// never a review comment; the summary still requires its fix.
func TestFindingOutsideTheDiffIsInTheBodyAndAnnotatedOnce(t *testing.T) {
	a, _ := treesApp(t, nil)
	a.debate("pull_request.opened.json", "d-out")
	c := a.conversation()
	onLine, inBody, annotated := c.where()
	t.Logf("on lines %v; in the review's body %v; annotated %v", onLine, inBody, annotated)
	const f = "api/user.go nilness"
	if onLine[f] != 0 || inBody[f] != 1 || annotated[f] != 1 {
		t.Errorf("%s: %d review comment(s), %d line(s) in the review's body, %d annotation(s); want 0, 1, 1", f, onLine[f], inBody[f], annotated[f])
	}
	if !strings.Contains(c.summary, "api/user.go#L19) handle the nil case before the dereference") {
		t.Errorf("the summary does not require the fix:\n%s", c.summary)
	}
	a.checkCalls()
}
