package review

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/toulmin"
)

func TestBuildContextBudget(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	// A file with a finding, plain source files, a lock file and a deletion-only hunk.
	b.WriteString(newFileDiff("api/handler.go", "package api\n\nimport \"os/exec\"\n\nfunc Run(tool string) error { return exec.Command(tool).Run() }\n"))
	for i := 0; i < 30; i++ {
		var body strings.Builder
		for j := 0; j < 40; j++ {
			fmt.Fprintf(&body, "func F%d_%d() int { return %d }\n", i, j, j)
		}
		b.WriteString(newFileDiff(fmt.Sprintf("pkg/f%02d.go", i), "package pkg\n\n"+body.String()))
	}
	b.WriteString(newFileDiff("package-lock.json", "{\n  \"lockfileVersion\": 3\n}\n"))
	b.WriteString("diff --git a/old/legacy.go b/old/legacy.go\n--- a/old/legacy.go\n+++ b/old/legacy.go\n@@ -1,4 +1,2 @@\n package old\n-\n-func Legacy() {}\n \n")
	c := mustParse(t, b.String())
	ev, err := scan.Gather(context.Background(), c, evidence.DefaultAnalyzers())
	if err != nil {
		t.Fatal(err)
	}
	cc, err := BuildContext(context.Background(), c, ev, 2000, tok)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Tokens > 2000 || tok.Count(cc.Text) > 2000+100 {
		t.Errorf("context is %d tokens (counted %d), over the 2000 budget", cc.Tokens, tok.Count(cc.Text))
	}
	if !strings.HasPrefix(cc.Text, "--- api/handler.go") {
		t.Errorf("the file with evidence does not come first:\n%s", cc.Text[:200])
	}
	omitted := strings.Join(cc.Omitted, "\n")
	for _, want := range []string{"package-lock.json (+3 -0, generated, vendored or lock file)", "old/legacy.go @@ -1,4 (4 lines removed)", "pkg/f29.go (+42 -0, over budget)"} {
		if !strings.Contains(omitted, want) {
			t.Errorf("omitted list lacks %q:\n%s", want, omitted)
		}
	}
	// Hunks are kept whole: every hunk in the text ends where its header says.
	for _, part := range strings.Split(cc.Text, "\n--- ")[1:] {
		if !strings.Contains(part, "@@") {
			t.Errorf("a file header without a hunk: %q", part[:40])
		}
	}
	if strings.Contains(cc.Text, "lockfileVersion") || strings.Contains(cc.Text, "Legacy") {
		t.Error("generated files or deletion-only hunks took budget")
	}
}

func TestParseReply(t *testing.T) {
	valid := `{"arguments":[],"position":{"vote":"approve","confidence":0.9,"reason":"ok","priorities":[],"trade_offs":[]},"synthesis":{"consensus_points":[],"conflicts":[],"resolution":""}}`
	tests := map[string]struct {
		content string
		want    string // error substring; "" for success
	}{
		"plain JSON":               {valid, ""},
		"fenced by a local server": {"Here is my reply:\n```json\n" + valid + "\n```\n", ""},
		"prose":                    {"Looks good to me.", "not a JSON object"},
		"empty":                    {"  ", "empty"},
		"wrong type":               {`{"arguments": "none"}`, "not valid JSON for the schema"},
		"cut off":                  {`{"arguments": [{"claim": "x"`, "not a JSON object"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := ParseReply(tc.content)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("ParseReply = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReplyTurnValidates(t *testing.T) {
	tr := &toulmin.Transcript{Arguments: []toulmin.Argument{{ID: "SS-1", Agent: "security", Phase: toulmin.PhaseOpening}, {ID: "PS-1", Agent: "performance", Phase: toulmin.PhaseOpening}}}
	req := &toulmin.Request{Phase: toulmin.PhaseSpec{Kind: toulmin.PhaseRebuttal}, Round: 1, Self: toulmin.Participant{Name: "security"}, Transcript: tr}
	r := &Reply{Position: ReplyPosition{Vote: "maybe"}, Arguments: []ReplyArgument{
		{Target: "SS-1", Claim: "x", Warrant: "w", Grounds: []ReplyGround{{Path: "a.go", Line: 1, Text: "t"}}},
		{Target: "XX-9", Claim: "x", Warrant: "w", Grounds: []ReplyGround{{Path: "a.go", Line: 1, Text: "t"}}},
		{Target: "PS-1", Claim: "", Warrant: "w", Grounds: []ReplyGround{{Path: "a.go", Line: -1, Text: "t"}}, Confidence: 2},
	}}
	turn, problems := r.Turn(req)
	if len(turn.Arguments) != 0 || turn.Position != nil {
		t.Fatalf("invalid parts were kept: %+v", turn)
	}
	all := strings.Join(problems, "\n")
	for _, want := range []string{"SS-1 is your own argument", `no argument "XX-9"`, "claim: must not be empty", "grounds[0].line", "qualifier.confidence", `position.vote: "maybe"`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%v", want, all)
		}
	}
}

func TestPrices(t *testing.T) {
	p := DefaultPrices()
	u := toulmin.Usage{Prompt: 1_000_000, CachedPrompt: 400_000, Completion: 100_000}
	if got := p.Cost("gpt-4o-mini-2024-07-18", u); fmt.Sprintf("%.4f", got) != "0.1800" {
		// 600k x 0.15 + 400k x 0.075 + 100k x 0.60, per million
		t.Errorf("cost = %.4f, want 0.1800", got)
	}
	if got := p.Cost("llama3:8b", u); got != 0 {
		t.Errorf("unknown model cost = %g, want 0", got)
	}
}

func TestTokenizerCountsOffline(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.Count("func main() { fmt.Println(\"hello, world\") }"); n < 8 || n > 20 {
		t.Errorf("token count = %d, want a plausible o200k count", n)
	}
}
