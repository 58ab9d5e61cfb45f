package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

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
	u := voting.Usage{Prompt: 1_000_000, CachedPrompt: 400_000, Completion: 100_000}
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
