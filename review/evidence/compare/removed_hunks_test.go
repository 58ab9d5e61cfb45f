package compare

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// goLong is a function long enough that a hunk in its middle shows neither its start nor its
// end.
const goLong = `package files

import (
	"fmt"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

func (s *Store) Open(root, name string) (*os.File, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opened++
	s.last = name
	p := filepath.Join(root, name)
	if !strings.HasPrefix(p, root+string(os.PathSeparator)) {
		return nil, errors.New("outside root")
	}
	s.log("open", p)
	s.count(p)
	s.touch(p)
	s.note(p)
	return os.Open(p)
}
`

const pyLong = `import os


class Store:
    def read(self, root, name):
        self.count += 1
        self.last = name
        self.seen.add(name)
        self.log("read", name)
        if ".." in name.split("/"):
            raise ValueError("parent segment in " + name)
        path = os.path.join(root, name)
        self.log("path", path)
        self.touch(path)
        self.note(path)
        with open(path) as f:
            return f.read()
`

const jsLong = `const path = require('path');

function allowed(entry, field, opts) {
  const cwd = opts.cwd;
  const strict = opts.strict;
  log('entry', entry.path, strict);
  count++;
  if (field === 'path' || entry.type === 'Link') {
    throw new Error('.. in ' + field);
  }
  log('field', field);
  touch(cwd);
  note(cwd);
  return path.join(cwd, entry[field]);
}
`

// On a bare diff, the comparison reads each hunk's two sides as fragments: a check removed in
// the middle of a function is found at its head line, with a finding that says what was not
// seen; an edit beside the check is not a finding.
func TestRemovedOnHunksOnly(t *testing.T) {
	goHead := strings.Replace(goLong, "\tif !strings.HasPrefix(p, root+string(os.PathSeparator)) {\n\t\treturn nil, errors.New(\"outside root\")\n\t}\n", "", 1)
	goEdited := strings.Replace(goLong, `s.log("open", p)`, `s.log("opening", p)`, 1)
	pyHead := strings.Replace(pyLong, "        if \"..\" in name.split(\"/\"):\n            raise ValueError(\"parent segment in \" + name)\n", "", 1)
	pyEdited := strings.Replace(pyLong, `self.log("path", path)`, `self.log("opening", path)`, 1)
	jsHead := strings.Replace(jsLong, " || entry.type === 'Link'", "", 1)
	jsEdited := strings.Replace(jsLong, "log('field', field);", "log('checked', field);", 1)
	cases := []struct {
		name       string
		path, b, h string
		want       []string
	}{
		{"go check removed mid-function", "files/open.go", goLong, goHead, []string{"check-removed@files/open.go:17"}},
		{"go line beside the check edited", "files/open.go", goLong, goEdited, nil},
		{"python check removed in a method", "store.py", pyLong, pyHead, []string{"protection-removed@store.py:10"}},
		{"python line beside the check edited", "store.py", pyLong, pyEdited, nil},
		{"javascript condition lost a disjunct", "lib/unpack.js", jsLong, jsHead, []string{"condition-weakened@lib/unpack.js:8"}},
		{"javascript line beside the check edited", "lib/unpack.js", jsLong, jsEdited, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if change.LanguageOf(tc.path) == "python" {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("python3 is not installed: the Python front end needs it (.ci/run installs it)")
				}
			}
			c := changetest.HunksOnly(changetest.Versions(t, [3]string{tc.path, tc.b, tc.h}), 3)
			if c.Files[0].Hunks[0].NewStart < 4 {
				t.Fatalf("the hunk starts at line %d: the test needs one in the middle of the function", c.Files[0].Hunks[0].NewStart)
			}
			got, notes := removedFindings(t, c)
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
			if !strings.Contains(strings.Join(notes, "\n"), "read 1 of 1") {
				t.Errorf("notes %q do not say the hunk was read as a fragment", notes)
			}
			ev, _, _ := scan.GatherWithNotes(t.Context(), c, []scan.Analyzer{RemovedAnalyzer{}})
			for _, e := range ev {
				if !strings.HasSuffix(e.Message, FragmentNote) {
					t.Errorf("finding %q does not say it saw the hunks only", e.Message)
				}
			}
		})
	}
}

// A Go fragment that closes the function and the block it starts in is opened by the header's
// function and a block; one that leaves brackets open is closed after.
func TestFragmentWraps(t *testing.T) {
	w := goFragWraps("func (s *Store) Open(root, name string) (*os.File, error) {")
	pre, post, ok := w[0]([]string{"\t\tx++", "\t}", "\treturn f(a,", "\t\tb)", "}", "", "func g() {", "\tcall("})
	if !ok || strings.Join(pre, "|") != "package p|func (s *Store) Open(root, name string) (*os.File, error) { {" || strings.Join(post, "|") != ")|}" {
		t.Errorf("go wrap: %q %q %v", pre, post, ok)
	}
	if _, _, ok := w[2]([]string{"\tx++", "}"}); ok {
		t.Error("a fragment that closes a brace was read at the top level")
	}
	js := jsFragWraps("export function pMap(input, mapper) {")
	pre, post, ok = js[1]([]string{"\t\tconst v = await next();", "\t\ttry {", "\t\t\tdone(v);"})
	if !ok || strings.Join(pre, "|") != "async function pMap() {" || strings.Join(post, "|") != "} finally {}|}" {
		t.Errorf("javascript wrap: %q %q %v", pre, post, ok)
	}
	if ir := jsIR("a.js", []byte("async function pMap() {\n\t\tconst v = await next();\n\t\ttry {\n\t\t\tdone(v);\n} finally {}\n}\n")); !parsedOK(ir) {
		t.Errorf("the wrapped javascript fragment does not parse: %s", ir.Err)
	}
	levels, prefixes, next := pyLevels([]string{"            x = f(", "    a)", "        y = 1", "    except E:", "        pass", "def g():"})
	if fmt.Sprint(levels) != "[12 8 4 0]" ||
		prefixes[2] != "    " || next[2] != "except E:" {
		t.Errorf("python levels %v %q %q", levels, prefixes, next)
	}
	pre, _, _ = pyFragWrap("class Store:")([]string{"        x = 1", "    def g(self):", "        pass"})
	if strings.Join(pre, "|") != "class Store:|    if True:" {
		t.Errorf("python wrap %q", pre)
	}
}

// goStats reads two fields under their locks in one function; another function of the change
// still takes one of them.
const goStats = `package stats

func (c *Channel) Stats() Stats {
	c.flightMu.Lock()
	inflight := len(c.inFlight)
	c.flightMu.Unlock()
	return Stats{
		Name:     c.name,
		InFlight: inflight,
		Depth:    c.depth,
	}
}
`

const goStatsLocker = `package stats

func (c *Channel) Put(id int, m *Message) {
	c.flightMu.Lock()
	c.inFlight[id] = m
	c.flightMu.Unlock()
}
`

// A function that no longer takes the lock it read a field under is reported, at the read, when
// head still takes that lock elsewhere in the change or the function takes no lock at all, or, on hunks only, when the change does not
// delete the lock's declaration; not when the change deletes it (the field went with its lock).
func TestRemovedLockWholly(t *testing.T) {
	head := strings.Replace(strings.Replace(goStats, "\tc.flightMu.Lock()\n\tinflight := len(c.inFlight)\n\tc.flightMu.Unlock()\n", "", 1),
		"InFlight: inflight,", "InFlight: len(c.inFlight),", 1)
	lockerEdited := strings.Replace(goStatsLocker, "c.inFlight[id] = m", "c.inFlight[id] = m // kept", 1)
	declBase := "package stats\n\ntype Channel struct {\n\tname     string\n\tflightMu sync.Mutex\n\tinFlight map[int]*Message\n}\n"
	declHead := "package stats\n\ntype Channel struct {\n\tname     string\n\tinFlight map[int]*Message\n}\n"
	t.Run("whole files, lock taken in another function of the change", func(t *testing.T) {
		got, _ := removedFindings(t, changetest.Versions(t, [3]string{"stats/stats.go", goStats, head}, [3]string{"stats/put.go", goStatsLocker, lockerEdited}))
		if strings.Join(got, " ") != "lock-removed@stats/stats.go:6" {
			t.Errorf("findings %v", got)
		}
	})
	t.Run("whole files, every lock taken out of the function", func(t *testing.T) {
		// the function still reads what base read under the lock, which its declaration keeps:
		// writers elsewhere in the tree take it
		got, _ := removedFindings(t, changetest.Versions(t, [3]string{"stats/stats.go", goStats, head}))
		if strings.Join(got, " ") != "lock-removed@stats/stats.go:6" {
			t.Errorf("findings %v", got)
		}
	})
	t.Run("hunks only", func(t *testing.T) {
		got, _ := removedFindings(t, changetest.HunksOnly(changetest.Versions(t, [3]string{"stats/stats.go", goStats, head}), 3))
		if strings.Join(got, " ") != "lock-removed@stats/stats.go:6" {
			t.Errorf("findings %v", got)
		}
	})
	t.Run("hunks only, lock declaration deleted", func(t *testing.T) {
		got, _ := removedFindings(t, changetest.HunksOnly(changetest.Versions(t, [3]string{"stats/stats.go", goStats, head}, [3]string{"stats/channel.go", declBase, declHead}), 3))
		if len(got) != 0 {
			t.Errorf("findings %v, want none", got)
		}
	})
}
