package codectx

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/llm"
)

func tokenizer(t *testing.T) *llm.Tokenizer {
	t.Helper()
	tok, err := llm.DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// narrowed is a change of files (path, base, head) as a pull request gives it: hunks with three
// lines of context, and the head file's content.
func narrowed(t *testing.T, files ...[3]string) *change.Change {
	t.Helper()
	c := changetest.Versions(t, files...)
	for _, f := range c.Files {
		f.Hunks = changetest.NarrowHunks(f.Hunks[0].Lines, 3)
		f.Reindex()
	}
	return c
}

// handlerChange is the fixture of a defect outside the hunk: the change only rewords an error
// message, and the handler goes on after the error reply (no return) into saving the order;
// writeError, in another file of the package, says the caller must return.
func handlerChange(t *testing.T) *change.Change {
	c := narrowed(t, [3]string{"api/handler.go", testdata(t, "handler_base.go.txt"), testdata(t, "handler_head.go.txt")})
	c.Beside = map[string][]byte{
		"api/errors.go": []byte(testdata(t, "errors.go.txt")),
		"api/store.go":  []byte(testdata(t, "store.go.txt")),
	}
	return c
}

func TestGoEnclosingFunctionCalleesAndCallers(t *testing.T) {
	c := handlerChange(t)
	if h := c.Files[0].Hunks; len(h) != 1 || h[0].NewStart+h[0].NewLines-1 >= 32 {
		t.Fatalf("the fixture's hunk should stop before the end of handleOrder: %+v", h)
	}
	code, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	head := strings.Split(testdata(t, "handler_head.go.txt"), "\n")
	// The whole of handleOrder, from its doc comment (line 18) to its brace (line 33), with the
	// head's numbers, comes first.
	if !strings.HasPrefix(code.Text, "--- api/handler.go:18-33 func (s *Server) handleOrder: changed here\n") {
		t.Fatalf("the changed function does not come first:\n%s", code.Text)
	}
	for n := 18; n <= 33; n++ {
		want := strings.TrimRight(strings.Repeat(" ", 5-len(itoa(n)))+itoa(n)+"| "+head[n-1], " ")
		if !strings.Contains(code.Text, want+"\n") {
			t.Errorf("line %d of the head is not shown as %q", n, want)
		}
	}
	// What it calls in the package (writeError, with the comment that it does not end the
	// handler), what uses it (Routes passes it as a handler) and the types it uses; not what is unrelated (Health, writeJSON) nor what is
	// outside the package (Decode, Save are methods of other packages' types or interfaces).
	for _, want := range []string{
		"--- api/errors.go:8-14 func writeError: called by handleOrder\n",
		"--- api/handler.go:13-16 func (s *Server) Routes: uses handleOrder\n",
		"--- api/store.go:5-9 type Order: used by handleOrder\n",
		"    9| // caller must return after it.\n",
	} {
		if !strings.Contains(code.Text, want) {
			t.Errorf("the code lacks %q:\n%s", want, code.Text)
		}
	}
	for _, not := range []string{"Health", "writeJSON"} {
		if strings.Contains(code.Text, not) {
			t.Errorf("the code shows %s, which the change does not reach:\n%s", not, code.Text)
		}
	}
	if len(code.Omitted) != 0 || code.Tokens == 0 || code.Tokens > 4000 {
		t.Errorf("everything fits: omitted %q, tokens %d", code.Omitted, code.Tokens)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// A package whose changed function calls many helpers: evidence ranks first, then closeness, and
// the budget cuts the rest, which is named.
func TestRelatedRankedByEvidenceThenClosenessAndTrimmed(t *testing.T) {
	var base strings.Builder
	base.WriteString("package p\n\nfunc Changed() {\n\tnear()\n\tfar()\n\tcited()\n\tother()\n\t_ = 1\n}\n\n")
	base.WriteString("func near() {\n\tprintln(\"near\")\n}\n\n")
	for i := 0; i < 40; i++ {
		base.WriteString("func filler" + itoa(i) + "() {\n\tprintln(\"filler\")\n\tprintln(\"filler\")\n}\n\n")
	}
	base.WriteString("func far() {\n\tprintln(\"far\")\n}\n\n")
	base.WriteString("func cited() {\n\tprintln(\"cited\")\n}\n")
	head := strings.Replace(base.String(), "_ = 1", "_ = 2", 1)
	c := narrowed(t, [3]string{"p/p.go", base.String(), head})
	c.Beside = map[string][]byte{"p/other.go": []byte("package p\n\nfunc other() {\n\tprintln(\"other file\")\n}\n")}
	lines := strings.Split(head, "\n")
	citedAt := 0
	for i, l := range lines {
		if l == "func cited() {" {
			citedAt = i + 2
		}
	}
	tok := tokenizer(t)
	all, err := Build(context.Background(), c, []Cite{{"p/p.go", citedAt}}, nil, 10000, tok)
	if err != nil {
		t.Fatal(err)
	}
	order := headers(all.Text)
	want := []string{"func Changed", "func cited", "func near", "func far", "func other"}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Fatalf("order %q, want %q", order, want)
	}
	// A budget that holds the changed function and two more: the farthest are left out, named.
	first3 := strings.Join(strings.SplitAfter(all.Text, "\n--- ")[:3], "")
	budget := tok.Count(first3) + 2
	cut, err := Build(context.Background(), c, []Cite{{"p/p.go", citedAt}}, nil, budget, tok)
	if err != nil {
		t.Fatal(err)
	}
	if got := headers(cut.Text); strings.Join(got, ",") != "func Changed,func cited,func near" {
		t.Errorf("within %d tokens the code shows %q", budget, got)
	}
	if cut.Tokens > budget {
		t.Errorf("%d tokens over the budget of %d", cut.Tokens, budget)
	}
	omitted := strings.Join(cut.Omitted, "\n")
	for _, w := range []string{"p/p.go:", "func far (called by Changed, 3 lines): over the budget", "p/other.go:3-5 func other (called by Changed, 3 lines): over the budget"} {
		if !strings.Contains(omitted, w) {
			t.Errorf("the left-out list lacks %q:\n%s", w, omitted)
		}
	}
}

// headers are the labels of the shown definitions, in order.
func headers(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(l, "--- "); ok {
			_, label, _ := strings.Cut(rest, " ")
			label, _, _ = strings.Cut(label, ":")
			out = append(out, label)
		}
	}
	return out
}

func TestHeadIndexCitesContextLines(t *testing.T) {
	c := handlerChange(t)
	x := NewHeadIndex(c)
	f := c.Files[0]
	// Line 29 (the Save call) is in handleOrder but outside the hunk: the diff does not show it,
	// the head tree has it.
	if f.Shows(30) || !x.HasLine("api/handler.go", 30) {
		t.Errorf("a line of the enclosing function outside the hunk: shown by the diff %v, citable %v", f.Shows(30), x.HasLine("api/handler.go", 30))
	}
	if !x.HasLine("api/handler.go", 26) {
		t.Error("a changed line is not citable")
	}
	if !x.HasPath("api/errors.go") || !x.HasLine("api/errors.go", 11) {
		t.Error("a line of a file beside the changed one (shown as a callee) is not citable")
	}
	lines := strings.Count(testdata(t, "handler_head.go.txt"), "\n")
	for _, bad := range []struct {
		path string
		line int
	}{{"api/handler.go", lines + 1}, {"api/handler.go", 0}, {"api/errors.go", 500}, {"api/elsewhere.go", 1}} {
		if x.HasPath(bad.path) && x.HasLine(bad.path, bad.line) {
			t.Errorf("%s:%d is not in the head tree, yet citable", bad.path, bad.line)
		}
	}
	if x.Empty() {
		t.Error("the change has files")
	}
}

// A changed struct brings the functions that use it: the constructor that must set a new field.
func TestChangedTypeShowsItsUsers(t *testing.T) {
	base := "package p\n\n// Pool holds connections.\ntype Pool struct {\n\tsize int\n}\n\n// NewPool makes a pool.\nfunc NewPool(n int) *Pool {\n\treturn &Pool{size: n}\n}\n\nfunc unrelated() {}\n"
	head := strings.Replace(base, "\tsize int\n", "\tsize int\n\tmu   sync.Mutex\n", 1)
	c := narrowed(t, [3]string{"p/pool.go", base, head})
	code, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(headers(code.Text), ","); got != "type Pool,func NewPool" {
		t.Errorf("shown %q, want the changed type and the function that builds it:\n%s", got, code.Text)
	}
	if !strings.Contains(code.Text, "--- p/pool.go:9-12 func NewPool: uses Pool\n") {
		t.Errorf("the user does not say what it uses:\n%s", code.Text)
	}
}
