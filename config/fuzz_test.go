package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/debatebot/debatebot/toulmin"
)

// FuzzParse feeds arbitrary bytes to the parser of .github/debatebot.yml, a file anyone who can
// push to a base branch writes. Whatever the input: no panic; a refusal is a config *Error that
// names the file in one line (it is posted on the pull request); an accepted file yields a
// configuration every protocol can run with, whose stakeholders have valid abbreviations and
// readable titles, and which parses again to the same configuration when written back.
//
//	go test ./config -run XXX -fuzz FuzzParse -fuzztime 2m
func FuzzParse(f *testing.F) {
	if example, err := os.ReadFile(filepath.Join("..", ".github", "debatebot.yml")); err == nil {
		f.Add(example)
	}
	for _, seed := range []string{
		"", "# nothing\n", "protocol: extended\nmax_rounds: 3\ntotal_timeout: 1h\n",
		"stakeholders:\n  - name: privacy\n    perspective: personal data\n    paths: [\"**/*.go\"]\n  - name: core_maintainer\n",
		"phases:\n  opening_arguments: {token_limit: 700, timeout: 90s}\n  rebuttal: {timeout: soon}\n",
		"thresholds:\n  strong: 0.9\n  consensus: 0.7\nweights:\n  core_maintainer: 5\n",
		"llm:\n  concurrency: 2\n  context_tokens: 600\n  prices:\n    m: {input: 1, cached_input: 0.5, output: 2}\n",
		"triggers:\n  pull_request: [opened, labeled]\n  drafts: true\ncommand_permission: triage\n",
		"ignore: [\"[abc\"]\n", "protocol: [standard\n", "stakeholders:\n  - name: \"über_team\"\n", "stakeholders:\n  - name: \"élan\"\n    abbrev: EL\n", "a: &a [*a]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data, RepoPath)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != RepoPath || len(ce.Problems) == 0 {
				t.Fatalf("Parse error %#v is not a config error naming the file with its problems", err)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n\u2028\u2029\u0085") {
				t.Fatalf("error %q is more than one line", msg)
			}
			return
		}
		for _, name := range []string{"", toulmin.ProtocolStandard, toulmin.ProtocolFastTrack, toulmin.ProtocolExtended} {
			if _, err := r.DebateProtocol(name); err != nil {
				t.Fatalf("an accepted file gives a protocol %q that cannot run: %v", name, err)
			}
		}
		if err := r.VotingThresholds().Validate(); err != nil {
			t.Fatalf("accepted thresholds do not validate: %v", err)
		}
		if err := r.Weights.Validate(); err != nil {
			t.Fatalf("accepted weights do not validate: %v", err)
		}
		for _, s := range r.Stakeholders {
			if !abbrevOK.MatchString(s.Abbrev) || strings.TrimSpace(s.Title) == "" || strings.IndexFunc(s.Name, func(c rune) bool { return !nameRune(c) }) >= 0 {
				t.Fatalf("stakeholder %q: abbreviation %q, title %q", s.Name, s.Abbrev, s.Title)
			}
			if utf8.ValidString(s.Name) && !utf8.ValidString(s.Title) {
				t.Fatalf("stakeholder %q got the garbled title %q", s.Name, s.Title)
			}
		}
		out, err := yaml.Marshal(r)
		if err != nil {
			t.Fatalf("an accepted configuration cannot be written back: %v", err)
		}
		again, err := Parse(out, RepoPath)
		if err != nil {
			t.Fatalf("an accepted configuration written back is refused: %v\n%s", err, out)
		}
		if out2, _ := yaml.Marshal(again); string(out2) != string(out) {
			t.Fatalf("an accepted configuration changes when written back and read again:\n%s\n---\n%s", out, out2)
		}
	})
}

// Found by FuzzParse: a stakeholder name starting with a letter outside ASCII got a title whose
// first letter was cut in half (invalid UTF-8 in the transcript) and an abbreviation that made
// the file invalid.
func TestStakeholderNameOutsideASCII(t *testing.T) {
	r, err := Parse([]byte("stakeholders:\n  - name: über_team\n  - name: élan\n    abbrev: EL\n"), RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Stakeholders[0]; s.Title != "Über Team" || s.Abbrev != "T" {
		t.Errorf("über_team: title %q abbrev %q, want Über Team and T", s.Title, s.Abbrev)
	}
	if s := r.Stakeholders[1]; s.Title != "Élan" || s.Abbrev != "EL" {
		t.Errorf("élan: title %q abbrev %q, want Élan and EL", s.Title, s.Abbrev)
	}
}

// Found by FuzzParse: a blank stakeholder name was accepted (with an empty title). A name is a
// key, kept in the store as "agent=vote" in a comma-separated list: only letters, digits, _, -
// and . are allowed.
func TestStakeholderNameIsAKey(t *testing.T) {
	for _, name := range []string{`" "`, `"a,b"`, `"x=approve"`, `"two words"`, `"line\nbreak"`} {
		_, err := Parse([]byte("stakeholders:\n  - name: "+name+"\n    abbrev: A\n"), RepoPath)
		if err == nil || !strings.Contains(err.Error(), "may hold only letters, digits") {
			t.Errorf("stakeholder name %s: error %v", name, err)
		}
	}
}
