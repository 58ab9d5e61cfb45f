package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

// storeDiff adds internal/store/users.go with a SQL injection and TLS verification turned off,
// after helpers functions added above them.
func storeDiff(helpers int) string {
	src := "package store\n\nimport (\n\t\"crypto/tls\"\n\t\"database/sql\"\n\t\"net/http\"\n)\n"
	for i := 0; i < helpers; i++ {
		src += fmt.Sprintf("\n// helper%d is added above.\nfunc helper%d() int { return %d }\n", i, i, i)
	}
	src += "\n// Find looks a user up by name.\nfunc Find(db *sql.DB, name string) (*sql.Rows, error) {\n\treturn db.Query(\"SELECT id FROM users WHERE name = '\" + name + \"'\")\n}\n" +
		"\n// Client talks to the billing service.\nfunc Client() *http.Client {\n\treturn &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}\n}\n"
	return changetest.NewFileDiff("internal/store/users.go", src)
}

type sarifOut struct {
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID         string         `json:"id"`
					Properties map[string]any `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string                `json:"ruleId"`
			Level     string                `json:"level"`
			Message   struct{ Text string } `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					Region           struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func debateSARIF(t *testing.T, diff string) sarifOut {
	t.Helper()
	path := filepath.Join(t.TempDir(), "change.diff")
	if err := os.WriteFile(path, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", nil, "debate", "--diff", path, "--format", "sarif")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var log sarifOut
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("--format sarif printed no JSON: %v\n%s", err, out)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "debatebot" || log.Runs[0].Tool.Driver.Version != version() {
		t.Fatalf("not one SARIF 2.1.0 run of debatebot %s:\n%s", version(), out)
	}
	return log
}

// TestDebateSARIFFingerprintsSurviveLineShifts debates two diffs that differ only by lines added
// above the findings: each finding moves down, with the same fingerprint, rule and level.
func TestDebateSARIFFingerprintsSurviveLineShifts(t *testing.T) {
	type result struct {
		line       int
		level, uri string
		fp         string
	}
	collect := func(log sarifOut) map[string]result {
		out := map[string]result{}
		for _, r := range log.Runs[0].Results {
			if len(r.Locations) != 1 {
				t.Fatalf("result %s has %d locations", r.RuleID, len(r.Locations))
			}
			pl := r.Locations[0].PhysicalLocation
			out[r.RuleID] = result{pl.Region.StartLine, r.Level, pl.ArtifactLocation.URI, r.PartialFingerprints["primaryLocationLineHash"]}
		}
		return out
	}
	before := collect(debateSARIF(t, storeDiff(0)))
	again := collect(debateSARIF(t, storeDiff(0)))
	after := collect(debateSARIF(t, storeDiff(3)))
	for rule, line := range map[string]int{"sql-injection": 11, "tls-verification-disabled": 16} {
		b, ok := before[rule]
		if !ok {
			t.Fatalf("no %s result: %v", rule, before)
		}
		if b.line != line || b.level != "error" || b.uri != "internal/store/users.go" || b.fp == "" {
			t.Errorf("%s: %+v, want an error at internal/store/users.go:%d with a fingerprint", rule, b, line)
		}
		if again[rule] != b {
			t.Errorf("%s: %+v in a second run, %+v in the first", rule, again[rule], b)
		}
		a := after[rule]
		if a.line != line+9 {
			t.Errorf("%s moved to line %d, want %d (three helpers of three lines added above)", rule, a.line, line+9)
		}
		if a.fp != b.fp {
			t.Errorf("%s: fingerprint %s became %s when lines were added above", rule, b.fp, a.fp)
		}
	}
	log := debateSARIF(t, storeDiff(0))
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		if r.ID == "sql-injection" && (fmt.Sprint(r.Properties["tags"]) != "[security]" || r.Properties["security-severity"] != "8.0") {
			t.Errorf("sql-injection rule properties %v", r.Properties)
		}
	}
}
