// Package realcases reads the real-code benchmark (bench/realcases: real fixes of public projects
// reversed, and real benign commits, as rows of metadata), splits it into dev and check by a fixed
// rule, and judges a debate of a case as the benchmark's README says.
package realcases

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Columns are a case file's columns, in order.
var Columns = []string{"id", "lang", "kind", "class", "repo", "fix", "base_side", "exclude", "defect", "cve", "summary"}

// Classes are the defect classes; a benign case's class is "none".
var Classes = []string{"security", "correctness", "concurrency", "resource", "performance"}

// Languages are the languages a case may be in.
var Languages = []string{"go", "python", "javascript", "typescript"}

// Case is one row of a case file.
type Case struct {
	ID, Lang, Kind, Class, Repo, Fix, BaseSide, Exclude, CVE, Summary string
	// Defects are where the defect is in the head tree (none for a benign case).
	Defects []Location
	// File is the case file the row came from.
	File string
}

// Location is a path and a range of lines (From == To for one line).
type Location struct {
	Path     string
	From, To int
}

// Defect reports whether the case is a real defect (a fix reversed), not a benign commit.
func (c Case) Defect() bool { return c.Kind == "defect" }

// Split is the part of the benchmark the case belongs to, by the rule fixed before any tuning:
// "check" when the first hex digit of its fix is 0 to 5, else "dev".
func (c Case) Split() string {
	if c.Fix != "" && strings.IndexByte("012345", c.Fix[0]) >= 0 {
		return "check"
	}
	return "dev"
}

var (
	shaRe  = regexp.MustCompile(`^[0-9a-f]{40}$`)
	repoRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	idRe   = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// Load reads the cases of path: a case file, or every *.tsv file of a folder. It fails on the
// first malformed row, naming the file and the line, and on an id used twice.
func Load(path string) ([]Case, error) {
	files := []string{path}
	if fi, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("failed to read the cases: %w", err)
	} else if fi.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.tsv")); err != nil {
			return nil, fmt.Errorf("failed to list the case files of %s: %w", path, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no case files (*.tsv)", path)
		}
		slices.Sort(files)
	}
	var all []Case
	seen := map[string]string{}
	for _, f := range files {
		cases, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if prev, ok := seen[c.ID]; ok {
				return nil, fmt.Errorf("%s: case %s is also in %s", f, c.ID, prev)
			}
			seen[c.ID] = f
		}
		all = append(all, cases...)
	}
	return all, nil
}

func loadFile(name string) ([]Case, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("failed to read the cases: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, len(Columns)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: no header row: %w", name, err)
	}
	if !slices.Equal(header, Columns) {
		return nil, fmt.Errorf("%s: the header is %q, want %q", name, strings.Join(header, " "), strings.Join(Columns, " "))
	}
	var out []Case
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		c, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		c.File = name
		out = append(out, c)
	}
}

// parseRow checks one row's fields against the format.
func parseRow(rec []string) (Case, error) {
	c := Case{ID: rec[0], Lang: rec[1], Kind: rec[2], Class: rec[3], Repo: rec[4], Fix: rec[5], BaseSide: rec[6],
		Exclude: rec[7], CVE: rec[9], Summary: rec[10]}
	switch {
	case !idRe.MatchString(c.ID):
		return c, fmt.Errorf("id %q: want lower-case letters, digits and dashes", c.ID)
	case !slices.Contains(Languages, c.Lang):
		return c, fmt.Errorf("%s: lang %q is not one of %s", c.ID, c.Lang, strings.Join(Languages, ", "))
	case !repoRe.MatchString(c.Repo):
		return c, fmt.Errorf("%s: repo %q is not owner/name", c.ID, c.Repo)
	case !shaRe.MatchString(c.Fix):
		return c, fmt.Errorf("%s: fix %q is not a full 40-hex commit", c.ID, c.Fix)
	case strings.TrimSpace(c.Summary) == "":
		return c, fmt.Errorf("%s: the summary is empty", c.ID)
	}
	switch c.Kind {
	case "defect":
		if !slices.Contains(Classes, c.Class) || c.BaseSide != "fix" {
			return c, fmt.Errorf("%s: a defect wants a class among %s and base_side fix (got %q, %q)", c.ID, strings.Join(Classes, ", "), c.Class, c.BaseSide)
		}
		locs, err := parseDefects(rec[8])
		if err != nil {
			return c, fmt.Errorf("%s: defect: %w", c.ID, err)
		}
		c.Defects = locs
	case "benign":
		if c.Class != "none" || c.BaseSide != "parent" || rec[8] != "-" {
			return c, fmt.Errorf("%s: a benign case wants class none, base_side parent and defect - (got %q, %q, %q)", c.ID, c.Class, c.BaseSide, rec[8])
		}
	default:
		return c, fmt.Errorf("%s: kind %q is not defect or benign", c.ID, c.Kind)
	}
	return c, nil
}

// parseDefects reads "path:line" and "path:a-b" locations joined by "; ".
func parseDefects(s string) ([]Location, error) {
	var out []Location
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		i := strings.LastIndexByte(part, ':')
		if i <= 0 {
			return nil, fmt.Errorf("%q is not path:line or path:a-b", part)
		}
		from, to, ranged := strings.Cut(part[i+1:], "-")
		a, err := strconv.Atoi(from)
		b := a
		if err == nil && ranged {
			b, err = strconv.Atoi(to)
		}
		if err != nil || a < 1 || b < a {
			return nil, fmt.Errorf("%q: the lines are not a line or a range a-b", part)
		}
		out = append(out, Location{Path: part[:i], From: a, To: b})
	}
	return out, nil
}
