package realcases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

const header = "id\tlang\tkind\tclass\trepo\tfix\tbase_side\texclude\tdefect\tcve\tsummary\n"

func write(t *testing.T, dir, name, rows string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(header+rows), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadReadsEveryFileOfAFolder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.tsv", "go-1\tgo\tdefect\tsecurity\to/r\t"+strings.Repeat("5", 40)+"\tfix\ta_test.go\ta.go:3; b.go:10-12\tCVE-1\tsummary\n")
	write(t, dir, "b.tsv", "py-1\tpython\tbenign\tnone\to/p\t"+strings.Repeat("6", 40)+"\tparent\t-\t-\t-\tsummary\n")
	cases, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].Split() != "check" || cases[1].Split() != "dev" {
		t.Fatalf("cases %+v", cases)
	}
	want := []Location{{"a.go", 3, 3}, {"b.go", 10, 12}}
	if d := cases[0].Defects; len(d) != 2 || d[0] != want[0] || d[1] != want[1] {
		t.Errorf("defects %+v, want %+v", d, want)
	}
}

func TestLoadRefusesMalformedRows(t *testing.T) {
	sha := strings.Repeat("a", 40)
	for name, row := range map[string]string{
		"short sha":           "x-1\tgo\tdefect\tsecurity\to/r\tabc\tfix\t-\ta.go:1\t-\ts\n",
		"unknown class":       "x-1\tgo\tdefect\tstyle\to/r\t" + sha + "\tfix\t-\ta.go:1\t-\ts\n",
		"no line":             "x-1\tgo\tdefect\tsecurity\to/r\t" + sha + "\tfix\t-\ta.go\t-\ts\n",
		"benign with defect":  "x-1\tgo\tbenign\tnone\to/r\t" + sha + "\tparent\t-\ta.go:1\t-\ts\n",
		"wrong column count":  "x-1\tgo\tbenign\tnone\to/r\t" + sha + "\tparent\t-\t-\ts\n",
		"unknown language":    "x-1\trust\tbenign\tnone\to/r\t" + sha + "\tparent\t-\t-\t-\ts\n",
		"backwards range":     "x-1\tgo\tdefect\tsecurity\to/r\t" + sha + "\tfix\t-\ta.go:9-3\t-\ts\n",
		"same id twice":       "x-1\tgo\tbenign\tnone\to/r\t" + sha + "\tparent\t-\t-\t-\ts\nx-1\tgo\tbenign\tnone\to/r\t" + sha + "\tparent\t-\t-\t-\ts\n",
		"repository not o/n":  "x-1\tgo\tbenign\tnone\trepo\t" + sha + "\tparent\t-\t-\t-\ts\n",
		"empty summary":       "x-1\tgo\tbenign\tnone\to/r\t" + sha + "\tparent\t-\t-\t-\t \n",
		"defect from parent":  "x-1\tgo\tdefect\tsecurity\to/r\t" + sha + "\tparent\t-\ta.go:1\t-\ts\n",
		"unknown kind of row": "x-1\tgo\tother\tnone\to/r\t" + sha + "\tparent\t-\t-\t-\ts\n",
	} {
		if name == "same id twice" {
			p := write(t, t.TempDir(), "c.tsv", row)
			if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "x-1") {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		p := write(t, t.TempDir(), "c.tsv", row)
		if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "c.tsv:2") {
			t.Errorf("%s: error %v, want one naming c.tsv:2", name, err)
		}
	}
}

func TestJudge(t *testing.T) {
	defect := Case{ID: "d", Kind: "defect", Defects: []Location{{"a.go", 10, 10}}}
	at := func(rule string, line int, decision voting.Option) *toulmin.Transcript {
		tr := &toulmin.Transcript{Evidence: []toulmin.Evidence{{Rule: rule, Path: "a.go", Line: line}}}
		tr.Record.Decision = decision
		return tr
	}
	for _, tc := range []struct {
		name  string
		tr    *toulmin.Transcript
		found bool
	}{
		{"cited within 3 lines", at("nilness", 13, voting.RequestChanges), true},
		{"too far", at("nilness", 14, voting.RequestChanges), false},
		{"approved", at("nilness", 10, voting.Approve), false},
		{"a process note", at("untested-change", 10, voting.RequestChanges), false},
	} {
		if r := Judge(defect, tc.tr, nil); r.Found != tc.found {
			t.Errorf("%s: found %v, want %v", tc.name, r.Found, tc.found)
		}
	}
	benign := Case{ID: "b", Kind: "benign"}
	if r := Judge(benign, at("nilness", 1, voting.RequestChanges), nil); !r.Failed {
		t.Error("a benign case held back is not failed")
	}
	if r := Judge(benign, at("nilness", 1, voting.ApproveWithChanges), nil); r.Failed {
		t.Error("a benign case approved with changes is failed")
	}
}

// The committed benchmark is well-formed (every row of bench/realcases loads), and never uses a
// repository the shared README holds out for judging the reviewer from outside.
func TestCommittedCasesLoadAndAvoidHeldOutRepositories(t *testing.T) {
	cases, err := Load(filepath.Join("..", "..", "bench", "realcases"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "realcases", "README.md"))
	if err != nil {
		t.Fatalf("the shared real cases' README (../shared beside the repository): %v", err)
	}
	_, held, ok := strings.Cut(string(readme), "## Held out")
	if !ok {
		t.Fatal("the shared README has no held-out section")
	}
	heldOut := map[string]bool{}
	for _, f := range strings.FieldsFunc(held, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		f = strings.TrimSuffix(strings.TrimSpace(f), ".")
		if strings.Count(f, "/") == 1 {
			heldOut[strings.ToLower(f)] = true
		}
	}
	if len(heldOut) < 10 {
		t.Fatalf("read %d held-out repositories from the shared README, want its list", len(heldOut))
	}
	for _, c := range cases {
		if heldOut[strings.ToLower(c.Repo)] {
			t.Errorf("%s (%s) uses the held-out repository %s", c.ID, c.File, c.Repo)
		}
	}
	t.Logf("%d committed cases, %d held-out repositories checked", len(cases), len(heldOut))
}
