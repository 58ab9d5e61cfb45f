package codectx

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
)

// shownBy is what a prompt's diff shows when it keeps every hunk of c.
func shownBy(c *change.Change) Shown {
	s := Shown{}
	for _, f := range c.Files {
		for _, h := range f.Hunks {
			s.Add(f.Path, h)
		}
	}
	return s
}

// numbered is line n of a definition as the code around the change writes it.
func numbered(n int, text string) string { return fmt.Sprintf("%5d| %s\n", n, text) }

const processBase = `package p

import "fmt"

// Process prints the items, and stops at the first empty one.
func Process(items []string) error {
	for _, it := range items {
		if it == "" {
			return fmt.Errorf("empty item")
		}
		fmt.Println(it)
	}
	total := len(items)
	fmt.Println("processed", total)
	fmt.Println("all of them")
	fmt.Println("done")
	return nil
}
`

// A definition the diff shows in part: its other lines are written with their head numbers, the
// hunk's lines are one marker line naming them, and the tokens counted are those written.
func TestLinesOfTheDiffAreOneMarker(t *testing.T) {
	head := strings.Replace(processBase, "fmt.Println(it)", `fmt.Println("item", it)`, 1)
	c := narrowed(t, [3]string{"p/p.go", processBase, head})
	h := c.Files[0].Hunks
	// Line 11 changes: the hunk shows lines 8 to 14 of the head, with three lines of context.
	if len(h) != 1 || h[0].NewStart != 8 || h[0].NewLines != 7 {
		t.Fatalf("the fixture's hunk should show lines 8-14: %+v", h)
	}
	tok := tokenizer(t)
	code, err := Build(context.Background(), c, nil, shownBy(c), 4000, tok)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(head, "\n")
	var want strings.Builder
	want.WriteString("--- p/p.go:5-18 func Process: changed here\n")
	for n := 5; n <= 7; n++ {
		want.WriteString(numbered(n, lines[n-1]))
	}
	want.WriteString("    ⋮ lines 8-14: in the diff above\n")
	for n := 15; n <= 18; n++ {
		want.WriteString(numbered(n, lines[n-1]))
	}
	if code.Text != want.String() {
		t.Fatalf("the code around the change:\n%s\nwant:\n%s", code.Text, want.String())
	}
	if n := tok.Count(code.Text); code.Tokens != n {
		t.Errorf("%d tokens counted, %d written", code.Tokens, n)
	}
	whole, err := Build(context.Background(), c, nil, nil, 4000, tok)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(whole.Text, numbered(11, lines[10])) || whole.Tokens <= code.Tokens {
		t.Errorf("with no diff shown, the definition is not whole (%d tokens, %d with the marker):\n%s", whole.Tokens, code.Tokens, whole.Text)
	}
}

// A run of lines the diff shows that is shorter than its marker (a closing brace) is written as
// it is; two runs are two markers.
func TestShortRunIsWrittenAndRunsAreMarkedApart(t *testing.T) {
	head := strings.Replace(processBase, "fmt.Println(it)", `fmt.Println("item", it)`, 1)
	c := narrowed(t, [3]string{"p/p.go", processBase, head})
	lines := strings.Split(head, "\n")
	shown := Shown{"p/p.go": {6: true, 7: true, 8: true, 9: true, 14: true, 15: true, 18: true}}
	code, err := Build(context.Background(), c, nil, shown, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		numbered(5, lines[4]) + "    ⋮ lines 6-9: in the diff above\n" + numbered(10, lines[9]),
		numbered(13, lines[12]) + "    ⋮ lines 14-15: in the diff above\n" + numbered(16, lines[15]),
		numbered(17, lines[16]) + numbered(18, "}"),
	} {
		if !strings.Contains(code.Text, want) {
			t.Errorf("the code lacks\n%s\nit is:\n%s", want, code.Text)
		}
	}
	if got := strings.Count(code.Text, "⋮"); got != 2 {
		t.Errorf("%d markers, want 2:\n%s", got, code.Text)
	}
}

// A definition the diff shows whole (an added file) is not repeated, but it is still the change:
// the helper it calls and the function that calls it, in files the diff does not show, are
// written whole.
func TestDefinitionWhollyInTheDiffBringsItsCalleesAndCallers(t *testing.T) {
	added := "package p\n\n// Export writes the rows.\nfunc Export(rows []string) {\n\tfor _, r := range rows {\n\t\twriteRow(r)\n\t}\n}\n"
	c := narrowed(t, [3]string{"p/export.go", "", added})
	c.Beside = map[string][]byte{
		"p/rows.go": []byte("package p\n\nimport \"fmt\"\n\n// writeRow prints one row, unquoted.\nfunc writeRow(r string) {\n\tfmt.Println(r)\n}\n"),
		"p/run.go":  []byte("package p\n\nfunc Run() {\n\tExport([]string{\"a\"})\n}\n"),
	}
	code, err := Build(context.Background(), c, nil, shownBy(c), 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	// Both are in other files, the nearer to the top first.
	want := "--- p/run.go:3-5 func Run: calls Export\n" +
		numbered(3, "func Run() {") + numbered(4, "\tExport([]string{\"a\"})") + numbered(5, "}") +
		"--- p/rows.go:5-8 func writeRow: called by Export\n" +
		numbered(5, "// writeRow prints one row, unquoted.") + numbered(6, "func writeRow(r string) {") + numbered(7, "\tfmt.Println(r)") + numbered(8, "}")
	if code.Text != want {
		t.Errorf("the code around an added function:\n%s\nwant:\n%s", code.Text, want)
	}
	whole, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(whole.Text, "--- p/export.go:3-8 func Export: changed here\n") {
		t.Errorf("with no diff shown, the added function is not written:\n%s", whole.Text)
	}
}
