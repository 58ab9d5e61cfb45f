package change_test

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
)

func TestEditLines(t *testing.T) {
	text := "a := 1\nb := 2\nc := 3\nd"
	off := func(s string) int { return strings.Index(text, s) }
	for name, tc := range map[string]struct {
		edits []change.Edit
		want  change.LineFix
		err   string
	}{
		"one word": {[]change.Edit{{off("2"), off("2") + 1, "20"}},
			change.LineFix{From: 12, To: 12, Old: "b := 2\n", New: "b := 20\n"}, ""},
		"two lines, two edits": {[]change.Edit{{off("3"), off("3") + 1, "30"}, {off("1"), off("1") + 1, "10"}},
			change.LineFix{From: 11, To: 13, Old: "a := 1\nb := 2\nc := 3\n", New: "a := 10\nb := 2\nc := 30\n"}, ""},
		"a whole line deleted": {[]change.Edit{{off("b"), off("c"), ""}},
			change.LineFix{From: 12, To: 12, Old: "b := 2\n", New: ""}, ""},
		"an insertion": {[]change.Edit{{off("c"), off("c"), "x := 0\n"}},
			change.LineFix{From: 13, To: 13, Old: "c := 3\n", New: "x := 0\nc := 3\n"}, ""},
		"the last line, without a newline": {[]change.Edit{{off("d"), off("d") + 1, "e"}},
			change.LineFix{From: 14, To: 14, Old: "d\n", New: "e\n"}, ""},
		"overlapping":     {[]change.Edit{{0, 5, ""}, {3, 8, ""}}, change.LineFix{}, "overlap"},
		"out of bounds":   {[]change.Edit{{off("d"), len(text) + 1, ""}}, change.LineFix{}, "outside"},
		"joins two lines": {[]change.Edit{{off("\nb"), off("\nb") + 1, " "}}, change.LineFix{}, "joins"},
		"no edit":         {nil, change.LineFix{}, "no edit"},
	} {
		got, err := change.EditLines([]byte(text), 11, tc.edits)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", name, got, err, tc.want)
		}
	}
}

// twoHunks is a file of 12 lines whose change shows lines 2-4 and 9-11 (one line of context
// around the lines 3 and 10 it changes).
func twoHunks(t *testing.T, content bool) *change.File {
	var base, head strings.Builder
	for i := 1; i <= 12; i++ {
		line := "line " + string(rune('a'+i-1))
		base.WriteString(line + "\n")
		if i == 3 || i == 10 {
			line += " changed"
		}
		head.WriteString(line + "\n")
	}
	c := changetest.Versions(t, [3]string{"f.go", base.String(), head.String()})
	f := c.Files[0]
	f.Hunks = changetest.NarrowHunks(f.Hunks[0].Lines, 1)
	f.Reindex()
	if !content {
		f.Content, f.HasContent = nil, false
	}
	return f
}

func TestCheckFix(t *testing.T) {
	for _, content := range []bool{true, false} {
		f := twoHunks(t, content)
		for name, tc := range map[string]struct {
			x   change.LineFix
			err string
		}{
			"in the hunk":             {change.LineFix{From: 3, To: 4, Old: "line c changed\nline d\n", New: "line c fixed\n"}, ""},
			"deleting a line":         {change.LineFix{From: 10, To: 10, Old: "line j changed\n", New: ""}, ""},
			"outside every hunk":      {change.LineFix{From: 6, To: 6, Old: "line f\n", New: "line F\n"}, "not inside one hunk"},
			"across two hunks":        {change.LineFix{From: 4, To: 9, Old: "line d\nline e\nline f\nline g\nline h\nline i\n", New: "x\n"}, "not inside one hunk"},
			"not what the head reads": {change.LineFix{From: 3, To: 3, Old: "line c\n", New: "line C\n"}, "reads"},
			"no change":               {change.LineFix{From: 3, To: 3, Old: "line c changed\n", New: "line c changed\n"}, "leaves the lines"},
			"line count":              {change.LineFix{From: 3, To: 4, Old: "line c changed\n", New: "x\n"}, "original text has 1"},
			"carriage return":         {change.LineFix{From: 3, To: 3, Old: "line c changed\n", New: "x\r\n"}, "carriage"},
			"none":                    {change.LineFix{}, "no fix"},
		} {
			err := f.CheckFix(tc.x)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("content %v, %s: err = %v, want %q", content, name, err, tc.err)
			}
		}
	}
}

func TestCheckFixReadsTheHeadFile(t *testing.T) {
	f := twoHunks(t, true)
	f.Content = []byte(strings.Replace(string(f.Content), "line c changed", "line c otherwise", 1))
	if err := f.CheckFix(change.LineFix{From: 3, To: 3, Old: "line c changed\n", New: "x\n"}); err == nil || !strings.Contains(err.Error(), "differs from the head file") {
		t.Errorf("err = %v, want the head file's line to differ", err)
	}
}

func TestWiden(t *testing.T) {
	f := twoHunks(t, true)
	x := change.LineFix{From: 2, To: 2, Old: "line b\n", New: "line B\n"}
	got, err := f.Widen(x, 4)
	want := change.LineFix{From: 2, To: 4, Old: "line b\nline c changed\nline d\n", New: "line B\nline c changed\nline d\n"}
	if err != nil || got != want {
		t.Errorf("Widen = %+v, %v; want %+v", got, err, want)
	}
	if err := f.CheckFix(got); err != nil {
		t.Errorf("the widened fix does not apply: %v", err)
	}
	if got, err := f.Widen(x, 2); err != nil || got != x {
		t.Errorf("Widen to a line of the fix = %+v, %v; want it unchanged", got, err)
	}
	if _, err := f.Widen(x, 9); err == nil {
		t.Errorf("Widen to another hunk: no error")
	}
	if _, err := f.Widen(change.LineFix{From: 10, To: 10, Old: "line j changed\n", New: "x\n"}, 3); err == nil {
		t.Errorf("Widen over more than %d lines: no error", change.MaxWiden)
	}
}
