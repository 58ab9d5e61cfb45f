package agents_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/agents"
	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/llm"
	"github.com/debatebot/debatebot/review/llmtest"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// handlerChange is a pull request whose defect lies outside its hunk: it only rewords an error
// message, while the handler goes on after the error reply (no return) into saving the order,
// and writeError, in another file of the package, says the caller must return. Its base and
// head trees are on disk, as the App's checkout writes them.
func handlerChange(t *testing.T) *change.Change {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "codectx", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	base, head := read("handler_base.go.txt"), read("handler_head.go.txt")
	c := changetest.Versions(t, [3]string{"api/handler.go", base, head})
	f := c.Files[0]
	f.Hunks = changetest.NarrowHunks(f.Hunks[0].Lines, 3)
	f.Reindex()
	c.Source, c.Title = "example/orders#7", "Reword the quantity error"
	dir := t.TempDir()
	for side, handler := range map[string]string{"base": base, "head": head} {
		files := map[string]string{"go.mod": "module example.com/orders\n\ngo 1.22\n", "api/handler.go": handler,
			"api/errors.go": read("errors.go.txt"), "api/store.go": read("store.go.txt")}
		for p, text := range files {
			name := filepath.Join(dir, side, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.Trees = func(context.Context) (string, string, func(), error) {
		return filepath.Join(dir, "base"), filepath.Join(dir, "head"), func() {}, nil
	}
	return c
}

var firstGround = regexp.MustCompile(`"grounds":\[\{"line":\d+,"path":"[^"]*"`)

// The model reads the enclosing function of the hunk (its lines the diff does not show: the
// missing return after the error reply) and the helper it calls from another file, with the
// head's line numbers, in the change message every call shares; a claim
// citing a line of that function outside the hunk is verified, one past the file's end is not.
// With DEBATEBOT_PROMPT_OUT set, the first opening call's prompt is written there.
func TestLLMPromptShowsTheCodeAroundTheChange(t *testing.T) {
	cite := map[string]int{"SS": 30, "PS": 400}
	srv := llmtest.New(t, func(n int, r *llmtest.Request) llmtest.Response {
		resp := llmtest.Valid(n, r)
		if phase, who := llmtest.Phase(r); phase == "opening_arguments" && cite[who] > 0 {
			resp.Content = firstGround.ReplaceAllString(resp.Content, `"grounds":[{"line":`+strconv.Itoa(cite[who])+`,"path":"api/handler.go"`)
		}
		return resp
	})
	tr := llmDebate(t, srv, toulmin.Standard(), handlerChange(t))
	reqs := srv.Requests()
	var first *llmtest.Request
	for _, r := range reqs {
		if phase, _ := llmtest.Phase(r); phase == "opening_arguments" && first == nil {
			first = r
		}
		if r.Messages[1].Content != reqs[0].Messages[1].Content {
			t.Fatal("the change message differs between calls; it must be the same bytes in every call")
		}
	}
	msg := first.Messages[1].Content
	for _, want := range []string{
		"<<<UNTRUSTED CODE\n--- api/handler.go:18-33 func (s *Server) handleOrder: changed here\n",
		"   22| \t\twriteError(w, http.StatusBadRequest, \"bad order\")\n    ⋮ lines 23-29: in the diff above\n   30| \t\treturn\n",
		"   32| \tw.WriteHeader(http.StatusCreated)\n   33| }\n",
		"--- api/errors.go:8-14 func writeError: called by handleOrder\n    8| // writeError replies with status and a JSON error message. It does not end the handler: the\n    9| // caller must return after it.\n",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	// The lines of the hunk are in the diff, and only there.
	if code := msg[strings.Index(msg, "<<<UNTRUSTED CODE"):]; strings.Contains(code, "   26| ") || !strings.Contains(msg, "  26 +\t\twriteError(w, http.StatusBadRequest, \"the quantity must be at least 1\")\n") {
		t.Error("the changed line is not in the diff, or is repeated in the code around the change")
	}
	if strings.Index(msg, "<<<UNTRUSTED DIFF") > strings.Index(msg, "<<<UNTRUSTED CODE") {
		t.Error("the code around the change comes before the diff")
	}
	if out := os.Getenv("DEBATEBOT_PROMPT_OUT"); out != "" {
		var b strings.Builder
		for _, m := range first.Messages {
			b.WriteString("===== " + m.Role + " =====\n" + m.Content + "\n")
		}
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ss, ok1 := tr.Argument("SS-1")
	ps, ok2 := tr.Argument("PS-1")
	if !ok1 || !ok2 {
		t.Fatalf("no SS-1 or PS-1; notes %v", tr.Timeline[1].Notes)
	}
	if len(ss.Grounds) == 0 || ss.Grounds[0].Citation() != "api/handler.go:30" {
		t.Fatalf("SS-1's grounds %+v do not cite the line the fake was told to", ss.Grounds)
	}
	if !ss.Quality.Verified() || len(ss.Quality.BadCitations) != 0 {
		t.Errorf("SS-1 cites api/handler.go:30, a line of the shown function outside the hunk, and is refused: %+v", ss.Quality)
	}
	if ps.Quality.Verified() || strings.Join(ps.Quality.BadCitations, ",") != "api/handler.go:400" {
		t.Errorf("PS-1 cites a line past the head file's end and is accepted: %+v", ps.Quality)
	}
}

// The hunks come first in the budget and the code around the change gets what they leave; what
// does not fit is named. A file that does not parse keeps its hunks, and says why it has no code.
func TestBuildContextSharesTheBudgetWithTheCode(t *testing.T) {
	tok, err := llm.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	c := handlerChange(t)
	whole, err := agents.BuildContext(context.Background(), c, nil, 100000, tok)
	if err != nil {
		t.Fatal(err)
	}
	hunks := tok.Count(whole.Text)
	changed, _, _ := strings.Cut(whole.Code, "\n--- ")
	budget := hunks + tok.Count(changed) + 20 // the hunk, the changed function, not all the rest
	cc, err := agents.BuildContext(context.Background(), c, nil, budget, tok)
	if err != nil {
		t.Fatal(err)
	}
	if cc.Text != whole.Text || !strings.HasPrefix(cc.Code, "--- api/handler.go:18-33 func (s *Server) handleOrder: changed here\n") {
		t.Fatalf("the hunk and the changed function should fit %d tokens:\n%s\n%s", budget, cc.Text, cc.Code)
	}
	if cc.Tokens > budget || tok.Count(cc.Text)+tok.Count(cc.Code) > budget+20 {
		t.Errorf("%d tokens (counted %d + %d) over the budget of %d", cc.Tokens, tok.Count(cc.Text), tok.Count(cc.Code), budget)
	}
	if len(cc.Code) >= len(whole.Code) || !strings.Contains(strings.Join(cc.Omitted, "\n"), "api/handler.go:13-16 func (s *Server) Routes (uses handleOrder, 4 lines): over the budget for code around the change") {
		t.Errorf("the code was not trimmed, or what was left out is not named: %q", cc.Omitted)
	}

	broken := changetest.Versions(t, [3]string{"api/broken.go", "package api\n\nfunc F() {\n}\n", "package api\n\nfunc F( {\n\treturn\n}\n"})
	bc, err := agents.BuildContext(context.Background(), broken, nil, 6000, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bc.Text, "+func F( {") || bc.Code != "" || !strings.Contains(strings.Join(bc.Omitted, "\n"), "api/broken.go: the code around its hunks is not shown (go: ") {
		t.Errorf("a file that does not parse: hunk %q, code %q, left out %q", bc.Text, bc.Code, bc.Omitted)
	}
}

// A hunk the budget leaves out of the diff is not shown there, so the code around the change
// shows its lines: Sum's rewrite (sixty removed lines, costly in the diff) does not fit, the
// short head version of Sum does, whole; Inc's hunk is kept (the evidence is on it), and Inc,
// which the diff shows whole, is not repeated.
func TestHunkLeftOutForTheBudgetIsInTheCode(t *testing.T) {
	tok, err := llm.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	var base strings.Builder
	base.WriteString("package p\n\n// Inc adds one.\nfunc Inc(x int) int {\n\ty := x\n\treturn y + 1\n}\n\n")
	base.WriteString("// Unrelated stands between.\nfunc Unrelated() {\n\tprintln(1)\n\tprintln(2)\n\tprintln(3)\n\tprintln(4)\n}\n\n")
	base.WriteString("// Sum adds the first items.\nfunc Sum(xs []int) int {\n\ttotal := 0\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&base, "\ttotal += xs[%d] // the item number %d, added by hand\n", i, i)
	}
	base.WriteString("\treturn total\n}\n")
	head := strings.Replace(base.String(), "return y + 1", "return y + 2", 1)
	head = head[:strings.Index(head, "\ttotal += xs[0]")] + "\tfor _, x := range xs {\n\t\ttotal += x\n\t}\n\treturn total\n}\n"
	c := changetest.Versions(t, [3]string{"p/p.go", base.String(), head})
	f := c.Files[0]
	f.Hunks = changetest.NarrowHunks(f.Hunks[0].Lines, 3)
	f.Reindex()
	if len(f.Hunks) != 2 {
		t.Fatalf("the fixture should have two hunks: %+v", f.Hunks)
	}
	ev := []toulmin.Evidence{{Path: "p/p.go", Line: 6, Severity: voting.SeverityMedium, Message: "off by one"}}
	header := fmt.Sprintf("--- p/p.go (modified, +%d -%d)\n", f.Added, f.Deleted)
	budget := tok.Count(header+agents.HunkText(f.Hunks[0])) + 150
	if tok.Count(agents.HunkText(f.Hunks[1])) <= 150 {
		t.Fatal("Sum's hunk should not fit what is left of the budget")
	}
	cc, err := agents.BuildContext(context.Background(), c, ev, budget, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cc.Text, "return y + 2") || strings.Contains(cc.Text, "xs[0]") ||
		!strings.Contains(strings.Join(cc.Omitted, "\n"), "p/p.go: 1 of 2 hunks (over budget)") {
		t.Fatalf("the diff should keep Inc's hunk and leave Sum's out: %q\n%s", cc.Omitted, cc.Text)
	}
	lines := strings.Split(head, "\n")
	var want strings.Builder
	want.WriteString("--- p/p.go:17-24 func Sum: changed here\n")
	for n := 17; n <= 24; n++ {
		fmt.Fprintf(&want, "%5d| %s\n", n, lines[n-1])
	}
	if cc.Code != want.String() {
		t.Errorf("the code around the change:\n%s\nwant Sum whole, and not Inc:\n%s", cc.Code, want.String())
	}
	if cc.Tokens > budget {
		t.Errorf("%d tokens over the budget of %d", cc.Tokens, budget)
	}
}
