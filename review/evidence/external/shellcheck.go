package external

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// SourceShellCheck names ShellCheck as the source of findings.
const SourceShellCheck = "shellcheck"

// ShellCheck runs ShellCheck (Debian's package, 0.9 on bookworm) over shell scripts. It parses
// the scripts and never runs them; --norc keeps it from reading a .shellcheckrc the change could
// add, and sourced files are not followed (no -x). Directives in the scripts themselves
// ("# shellcheck disable=...") are honoured: ShellCheck 0.9 has no switch to ignore them.
type ShellCheck struct{}

// Name implements Tool.
func (ShellCheck) Name() string { return SourceShellCheck }

// Language implements Tool.
func (ShellCheck) Language() string { return "shell" }

// Handles implements Tool.
func (ShellCheck) Handles(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".sh", ".bash":
		return true
	}
	return false
}

// Command implements Tool. Style-level remarks are left out (-S info).
func (ShellCheck) Command(files []string) (string, []string, error) {
	p, err := lookPath("shellcheck")
	if err != nil {
		return "", nil, err
	}
	return p, append([]string{"--norc", "--severity=info", "--format=json1", "--"}, files...), nil
}

type shellcheckReport struct {
	Comments *[]struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Level   string `json:"level"`
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"comments"`
}

// Parse implements Tool: ShellCheck exits 0 when it has nothing to say, 1 when it has,
// and 2 or more when a file could not be read or its options were wrong.
func (ShellCheck) Parse(out *ToolOutput) ([]scan.Finding, []Problem, error) {
	var rep shellcheckReport
	if err := json.Unmarshal(out.Stdout, &rep); err != nil || rep.Comments == nil || out.ExitCode > 1 {
		if err == nil && rep.Comments == nil {
			err = fmt.Errorf("no comments")
		}
		if err == nil {
			err = fmt.Errorf("exit status %d", out.ExitCode)
		}
		return nil, nil, reportError(SourceShellCheck, out, err)
	}
	var found []scan.Finding
	for _, c := range *rep.Comments {
		if c.File == "" || c.Line < 1 || c.Code == 0 {
			continue
		}
		id := fmt.Sprintf("SC%d", c.Code)
		sev := voting.SeverityLow
		if c.Level == "error" {
			sev = voting.SeverityMedium // a script that does not parse, or a construct that cannot work
		}
		if _, ok := shellcheckRules[id]; ok {
			sev = voting.SeverityCritical // the catalog's severity is the finding's
		}
		found = append(found, externalFinding(SourceShellCheck, id, sev, c.File, c.Line, c.Column, c.Message))
	}
	return found, nil, nil
}

// shellcheckRules is the catalog of the ShellCheck codes that are real bugs (medium, high where
// data is destroyed), and of the most frequent ones that are only risky (low: SC2086's unquoted
// variable is usually harmless, and every script has one).
var shellcheckRules = map[string]externalRule{
	"SC2115": {title: "rm -rf on a path that can expand to /", severity: voting.SeverityHigh, topic: rules.TopicSecurity, fix: `use "${var:?}" so that an empty variable stops the script instead of deleting from /`},
	"SC2114": {title: "deletes a system directory", severity: voting.SeverityHigh, topic: rules.TopicSecurity, fix: "check the path: the command removes a system directory"},
	"SC2094": {title: "same file read and written in one pipeline", severity: voting.SeverityMedium, fix: "write to a temporary file and move it over the original"},
	"SC2091": {title: "command output executed", severity: voting.SeverityMedium, topic: rules.TopicSecurity, fix: "remove the $( ) around the command: its output is run as a command"},
	"SC2092": {title: "command output executed (backticks)", severity: voting.SeverityMedium, topic: rules.TopicSecurity, fix: "remove the backticks around the command: its output is run as a command"},
	"SC2066": {title: "quoted loop list runs once", severity: voting.SeverityMedium, fix: "drop the quotes around the list, or iterate over an array"},
	"SC2076": {title: "quoted regex matched literally", severity: voting.SeverityMedium, fix: "leave the right-hand side of =~ unquoted to match a regex"},
	"SC2070": {title: "-n on an unquoted argument is always true", severity: voting.SeverityMedium, fix: "quote the argument of -n"},
	"SC2071": {title: "> compares strings, not numbers", severity: voting.SeverityMedium, fix: "use -gt (or (( )) ) to compare numbers"},
	"SC2072": {title: "decimal comparison in [ ]", severity: voting.SeverityMedium, fix: "compare decimals with bc or awk"},
	"SC2157": {title: "condition is always true", severity: voting.SeverityMedium, fix: "reference the variable with $ in the test"},
	"SC2050": {title: "constant condition", severity: voting.SeverityMedium, fix: "reference the variable with $ in the test"},
	"SC2193": {title: "comparison can never be equal", severity: voting.SeverityMedium, fix: "fix the compared values: they can never be equal"},
	"SC2194": {title: "constant case word", severity: voting.SeverityMedium, fix: "reference the variable with $ in the case word"},
	"SC2088": {title: "tilde does not expand in quotes", severity: voting.SeverityMedium, fix: `use "$HOME" or leave the tilde unquoted`},
	"SC2128": {title: "array expanded without an index", severity: voting.SeverityMedium, fix: `use "${array[@]}" for all elements or "${array[0]}" for the first`},
	"SC2145": {title: "string and array mixed in one argument", severity: voting.SeverityMedium, fix: `use "$*" or separate the array into its own argument`},
	"SC2168": {title: "local outside a function", severity: voting.SeverityMedium, fix: "remove local or move the code into a function"},
	"SC2242": {title: "exit status outside 0-255", severity: voting.SeverityMedium, fix: "exit with a status between 0 and 255"},
	"SC2024": {title: "sudo does not apply to the redirection", severity: voting.SeverityMedium, fix: "use | sudo tee FILE instead of sudo cmd > FILE"},
	"SC2069": {title: "redirections in the wrong order", severity: voting.SeverityMedium, fix: "redirect stdout first: > file 2>&1"},
	"SC2081": {title: "[ ] cannot match globs", severity: voting.SeverityMedium, fix: "use [[ ]] or case to match a glob"},
	"SC2095": {title: "command in a while-read loop swallows its input", severity: voting.SeverityMedium, fix: "give the command </dev/null (ssh -n) so that it does not read the loop's input"},
	"SC2086": {title: "unquoted variable (globbing and word splitting)", severity: voting.SeverityLow, fix: `quote the expansion: "$var"`},
	"SC2046": {title: "unquoted command substitution", severity: voting.SeverityLow, fix: `quote the substitution: "$(cmd)"`},
	"SC2068": {title: "unquoted array expansion", severity: voting.SeverityLow, fix: `quote the expansion: "${array[@]}"`},
	"SC2164": {title: "cd without a check", severity: voting.SeverityLow, fix: "use cd ... || exit"},
	"SC2155": {title: "declare and assign in one step hides the exit status", severity: voting.SeverityLow, fix: "declare the variable, then assign it"},
	"SC2034": {title: "variable assigned but never used", severity: voting.SeverityLow, fix: "use the variable or remove it (export it if another program reads it)"},
	"SC2154": {title: "variable used but never assigned", severity: voting.SeverityLow, fix: "assign the variable, or check that the environment provides it (${var:?})"},
	"SC2045": {title: "loop over ls output", severity: voting.SeverityLow, fix: "loop over a glob instead of ls output"},
	"SC2148": {title: "no shebang", severity: voting.SeverityLow, fix: "add a shebang (#!/bin/sh or #!/usr/bin/env bash)"},
}

func registerShellCheck() {
	for id, r := range shellcheckRules {
		if r.topic == "" {
			r.topic = rules.TopicCorrectness
		}
		r.url = "https://www.shellcheck.net/wiki/" + id
		shellcheckRules[id] = r
	}
	externalCatalogs[SourceShellCheck] = shellcheckRules
	otherURLs[SourceShellCheck] = "https://www.shellcheck.net/wiki/"
	otherTopics[SourceShellCheck] = rules.TopicCorrectness
}
