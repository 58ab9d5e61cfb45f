package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/compare"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// goLib is a library function long enough that a hunk in its middle shows neither end.
const goLib = `package store

import "errors"

func (s *Store) Put(key string, v []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.puts++
	s.last = key
	if len(v) > s.max {
		return errors.New("value too large")
	}
	s.data[key] = v
	s.size += len(v)
	s.touch(key)
	return nil
}
`

// On a bare diff, the Go checks of added lines read the hunks' head sides: a panic added in the
// middle of a library function is found at its line; the same in package main, or in a test
// file, is not.
func TestGoChecksOnHunksOnly(t *testing.T) {
	head := strings.Replace(goLib, `return errors.New("value too large")`, `panic("value too large")`, 1)
	mainBase := strings.Replace(goLib, "package store", "package main", 1)
	mainHead := strings.Replace(head, "package store", "package main", 1)
	for _, tc := range []struct {
		path, b, h string
		want       []string
	}{
		{"store/put.go", goLib, head, []string{"panic-in-library@store/put.go:11"}},
		{"cmd/store/main.go", mainBase, mainHead, nil},
		{"store/put_test.go", goLib, head, nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			c := changetest.HunksOnly(changetest.Versions(t, [3]string{tc.path, tc.b, tc.h}), 3)
			ev, _, err := scan.GatherWithNotes(t.Context(), c, []scan.Analyzer{goAnalyzer{}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ev {
				got = append(got, fmt.Sprintf("%s@%s:%d", e.Rule, e.Path, e.Line))
				if !strings.HasSuffix(e.Message, compare.FragmentNote) {
					t.Errorf("finding %q does not say it saw the hunks only", e.Message)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
