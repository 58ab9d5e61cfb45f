package external

import (
	"encoding/xml"
	"fmt"
	"path"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// SourceCppcheck names Cppcheck as the source of findings.
const SourceCppcheck = "cppcheck"

// Cppcheck runs Cppcheck (Debian's package, 2.10 on bookworm, whose XML version 2 is its
// machine-readable report; SARIF came later) over C and C++ files. Cppcheck parses and simulates
// the code, never compiles or runs it. Inline suppressions in the code are not honoured (no
// --inline-suppr), and no include path is given: headers beside a file are read when it includes
// them, system headers are not.
type Cppcheck struct{}

// Name implements Tool.
func (Cppcheck) Name() string { return SourceCppcheck }

// Language implements Tool.
func (Cppcheck) Language() string { return "C/C++" }

// Handles implements Tool.
func (Cppcheck) Handles(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		return true
	}
	return false
}

// Command implements Tool: errors and warnings (--enable=warning), the XML report on
// standard error, progress lines off (--quiet).
func (Cppcheck) Command(files []string) (string, []string, error) {
	p, err := lookPath("cppcheck")
	if err != nil {
		return "", nil, err
	}
	return p, append([]string{"--xml", "--xml-version=2", "--enable=warning", "--quiet"}, files...), nil
}

type cppcheckReport struct {
	XMLName xml.Name `xml:"results"`
	Version string   `xml:"version,attr"`
	Errors  *struct {
		Errors []struct {
			ID        string `xml:"id,attr"`
			Severity  string `xml:"severity,attr"`
			Msg       string `xml:"msg,attr"`
			CWE       string `xml:"cwe,attr"`
			Locations []struct {
				File   string `xml:"file,attr"`
				Line   int    `xml:"line,attr"`
				Column int    `xml:"column,attr"`
			} `xml:"location"`
		} `xml:"error"`
	} `xml:"errors"`
}

// cppcheckNotDefects are messages of error severity that say Cppcheck could not follow the code
// (a macro it does not know, a syntax it does not parse), not that the code is wrong: they are
// problems of the analysis, listed in the note.
var cppcheckNotDefects = map[string]bool{
	"syntaxError": true, "unknownMacro": true, "preprocessorErrorDirective": true, "internalAstError": true,
	"internalError": true, "cppcheckError": true, "noValidConfiguration": true, "toomanyconfigs": true,
	"missingInclude": true, "missingIncludeSystem": true, "unmatchedSuppression": true, "purgedConfiguration": true,
	"syntaxErrorAsOtherSeverity": true, "instantiationError": true, "internalCheck": true,
}

// Parse implements Tool: Cppcheck exits 0 whatever it found (no --error-exitcode) and
// writes its XML report on standard error.
func (Cppcheck) Parse(out *ToolOutput) ([]scan.Finding, []Problem, error) {
	var rep cppcheckReport
	if err := xml.Unmarshal(out.Stderr, &rep); err != nil || rep.Errors == nil || rep.Version != "2" || out.ExitCode != 0 {
		if err == nil && (rep.Errors == nil || rep.Version != "2") {
			err = fmt.Errorf("no <errors> of an XML version 2 report")
		}
		if err == nil {
			err = fmt.Errorf("exit status %d", out.ExitCode)
		}
		return nil, nil, reportError(SourceCppcheck, &ToolOutput{Stdout: out.Stderr, Stderr: out.Stdout, ExitCode: out.ExitCode}, err)
	}
	var found []scan.Finding
	var problems []Problem
	for _, e := range rep.Errors.Errors {
		if len(e.Locations) == 0 || e.Locations[0].File == "" || e.Locations[0].Line < 1 {
			continue // a message about the run, not about a place
		}
		loc := e.Locations[0] // the first location is where the defect is; the others lead to it
		if cppcheckNotDefects[e.ID] {
			problems = append(problems, Problem{Path: loc.File, Line: loc.Line, Reason: e.Msg + " (" + e.ID + ")"})
			continue
		}
		sev := voting.SeverityLow
		if e.Severity == "error" {
			sev = voting.SeverityHigh // Cppcheck's errors are defects it proved on a path of the code
		}
		if r, ok := cppcheckRules[e.ID]; ok && e.Severity != "error" {
			sev = r.severity // a warning the catalog knows to be a real bug
		}
		msg := e.Msg
		if e.CWE != "" && e.CWE != "0" {
			msg += " (CWE-" + e.CWE + ")"
		}
		found = append(found, externalFinding(SourceCppcheck, e.ID, sev, loc.File, loc.Line, loc.Column, msg))
	}
	return found, problems, nil
}

// cppcheckRules is the catalog of Cppcheck's most frequent defects: its errors (high) and the
// warnings that are bugs more often than not (medium). Other warnings go under cppcheck:other as
// low; other errors as high.
var cppcheckRules = map[string]externalRule{
	"nullPointer":                      {title: "null pointer dereference", severity: voting.SeverityHigh, fix: "check the pointer before dereferencing it"},
	"nullPointerRedundantCheck":        {title: "pointer dereferenced before or after a null check", severity: voting.SeverityMedium, fix: "check the pointer before every dereference, or drop the check that cannot fail"},
	"nullPointerArithmetic":            {title: "arithmetic on a null pointer", severity: voting.SeverityHigh, fix: "check the pointer before the arithmetic"},
	"uninitvar":                        {title: "uninitialised variable used", severity: voting.SeverityHigh, fix: "initialise the variable on every path before its use"},
	"uninitdata":                       {title: "uninitialised memory used", severity: voting.SeverityHigh, fix: "initialise the allocated memory before reading it (calloc, memset)"},
	"arrayIndexOutOfBounds":            {title: "array index out of bounds", severity: voting.SeverityHigh, fix: "check the index against the array's size"},
	"arrayIndexOutOfBoundsCond":        {title: "array index out of bounds under a condition", severity: voting.SeverityMedium, fix: "check the index against the array's size"},
	"bufferAccessOutOfBounds":          {title: "buffer accessed out of bounds", severity: voting.SeverityHigh, fix: "bound the copy by the destination's size (snprintf, strlcpy, memcpy with a checked length)"},
	"negativeIndex":                    {title: "negative array index", severity: voting.SeverityHigh, fix: "check the index is not negative"},
	"outOfBounds":                      {title: "access out of bounds", severity: voting.SeverityHigh, fix: "check the offset against the object's size"},
	"memleak":                          {title: "memory leak", severity: voting.SeverityHigh, topic: rules.TopicResource, fix: "free the memory on every path"},
	"memleakOnRealloc":                 {title: "memory leak when realloc fails", severity: voting.SeverityHigh, topic: rules.TopicResource, fix: "assign realloc's result to a temporary and free the old block when it is NULL"},
	"resourceLeak":                     {title: "resource leak", severity: voting.SeverityHigh, topic: rules.TopicResource, fix: "close the file or handle on every path"},
	"leakReturnValNotUsed":             {title: "allocated memory returned and ignored", severity: voting.SeverityHigh, topic: rules.TopicResource, fix: "keep and free the returned memory"},
	"doubleFree":                       {title: "memory freed twice", severity: voting.SeverityHigh, topic: rules.TopicSecurity, fix: "free once, and set the pointer to NULL after freeing"},
	"deallocuse":                       {title: "memory used after it was freed", severity: voting.SeverityHigh, topic: rules.TopicSecurity, fix: "do not use the pointer after free"},
	"deallocret":                       {title: "freed memory returned", severity: voting.SeverityHigh, topic: rules.TopicSecurity, fix: "do not return a pointer to freed memory"},
	"mismatchAllocDealloc":             {title: "allocation and deallocation do not match", severity: voting.SeverityHigh, fix: "free with the function that matches the allocation (free/malloc, delete/new, delete[]/new[])"},
	"autoVariables":                    {title: "address of a local variable kept after return", severity: voting.SeverityHigh, fix: "allocate the object or copy it out instead of keeping a pointer to a local"},
	"returnDanglingLifetime":           {title: "dangling pointer or reference returned", severity: voting.SeverityHigh, fix: "return an object that outlives the call"},
	"danglingLifetime":                 {title: "dangling pointer or reference", severity: voting.SeverityHigh, fix: "keep the pointed-to object alive as long as the pointer"},
	"invalidLifetime":                  {title: "object used after its lifetime", severity: voting.SeverityHigh, fix: "keep the object alive as long as it is used"},
	"zerodiv":                          {title: "division by zero", severity: voting.SeverityHigh, fix: "check the divisor before dividing"},
	"zerodivcond":                      {title: "division by a value checked for zero elsewhere", severity: voting.SeverityMedium, fix: "check the divisor before dividing"},
	"invalidFunctionArg":               {title: "invalid argument to a library function", severity: voting.SeverityHigh, fix: "pass a value in the function's valid range"},
	"wrongPrintfScanfArgNum":           {title: "format string and arguments do not match", severity: voting.SeverityHigh, fix: "make the format's conversions match the arguments"},
	"invalidscanf":                     {title: "scanf without a field width", severity: voting.SeverityMedium, topic: rules.TopicSecurity, fix: "give %s a field width (%31s for a 32-byte buffer)"},
	"bufferNotZeroTerminated":          {title: "buffer not zero-terminated", severity: voting.SeverityMedium, fix: "terminate the buffer after strncpy (or use snprintf)"},
	"identicalConditionAfterEarlyExit": {title: "condition already handled by an earlier return", severity: voting.SeverityMedium, fix: "fix the condition: the branch can never run"},
	"uninitMemberVar":                  {title: "member not initialised in the constructor", severity: voting.SeverityLow, fix: "initialise every member in the constructor"},
}

func registerCppcheck() {
	for id, r := range cppcheckRules {
		if r.topic == "" {
			r.topic = rules.TopicCorrectness
		}
		r.url = "https://cppcheck.sourceforge.io/"
		cppcheckRules[id] = r
	}
	externalCatalogs[SourceCppcheck] = cppcheckRules
	otherURLs[SourceCppcheck] = "https://cppcheck.sourceforge.io/"
	otherTopics[SourceCppcheck] = rules.TopicCorrectness
}
