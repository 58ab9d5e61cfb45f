package external

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// SourceESLint names ESLint as the source of findings.
const SourceESLint = "eslint"

// DefaultESLintDir is where the container image installs debatebot's ESLint (tools/eslint of the
// repository, set up with npm ci).
const DefaultESLintDir = "/opt/debatebot/eslint"

// ESLintDir is the directory holding debatebot's ESLint: $DEBATEBOT_ESLINT_DIR, or DefaultESLintDir.
func ESLintDir() string {
	if d := os.Getenv("DEBATEBOT_ESLINT_DIR"); d != "" {
		return d
	}
	return DefaultESLintDir
}

// ESLint runs ESLint 9 with eslint-plugin-security, a few core bug rules and typescript-eslint's
// type-aware bug rules over JavaScript and TypeScript files. Every file is parsed by
// @typescript-eslint/parser against one TypeScript program of the files given (and at most 100
// files of the tree they import), under the tree's tsconfig.json read as JSON and debatebot's own
// overrides: no plugin, no emit, only debatebot's Node.js types, nothing outside the tree.
// Dir holds the repository's tools/eslint after npm ci: package.json and its lockfile, which pin
// the versions, node_modules, and debatebot's own flat config and report formatter.
//
// ESLint runs with --no-config-lookup and that config only: a repository's eslint.config.js and
// the plugins it names are code, and loading them would run the pull request author's code.
// --no-inline-config ignores eslint-disable comments, which a change could otherwise use to
// silence the rules for itself.
type ESLint struct{ Dir string }

// Name implements Tool.
func (ESLint) Name() string { return SourceESLint }

// Language implements Tool.
func (ESLint) Language() string { return "JavaScript/TypeScript" }

// Handles implements Tool.
func (ESLint) Handles(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx":
		return !strings.HasSuffix(strings.ToLower(p), ".d.ts")
	}
	return false
}

// Command implements Tool.
func (e ESLint) Command(files []string) (string, []string, error) {
	node, err := lookPath("node")
	if err != nil {
		return "", nil, err
	}
	dir, err := filepath.Abs(e.Dir)
	if err != nil {
		return "", nil, fmt.Errorf("failed to resolve the ESLint directory %s: %w", e.Dir, err)
	}
	bin := filepath.Join(dir, "node_modules", "eslint", "bin", "eslint.js")
	config := filepath.Join(dir, "eslint.config.mjs")
	formatter := filepath.Join(dir, "formatter.cjs")
	for _, f := range []string{bin, config, formatter} {
		if _, err := os.Stat(f); err != nil {
			return "", nil, fmt.Errorf("%w (no %s: set DEBATEBOT_ESLINT_DIR to a copy of tools/eslint set up with npm ci)", ErrNotInstalled, f)
		}
	}
	args := []string{bin, "--no-config-lookup", "--config", config, "--no-inline-config", "--no-warn-ignored",
		"--format", formatter, "--"}
	return node, append(args, files...), nil
}

type eslintFile struct {
	FilePath string `json:"filePath"`
	Messages []struct {
		RuleID   *string    `json:"ruleId"`
		Severity int        `json:"severity"`
		Fatal    bool       `json:"fatal"`
		Message  string     `json:"message"`
		Line     int        `json:"line"`
		Column   int        `json:"column"`
		Fix      *eslintFix `json:"fix"`
	} `json:"messages"`
}

// eslintFix is a message's edit as formatter.cjs reports it: the whole lines it touches, from
// line Line, and the edit's byte range [Start, End) within them, replaced by Text.
type eslintFix struct {
	Line       int    `json:"line"`
	Lines      string `json:"lines"`
	Start, End int
	Text       string `json:"text"`
}

// lineFix is the edit as the whole lines it replaces; none when it does not make whole lines.
func (x *eslintFix) lineFix() change.LineFix {
	if x == nil || x.Line < 1 {
		return change.LineFix{}
	}
	lf, err := change.EditLines([]byte(x.Lines), x.Line, []change.Edit{{Start: x.Start, End: x.End, New: x.Text}})
	if err != nil {
		return change.LineFix{}
	}
	return lf
}

// Parse implements Tool: ESLint exits 0 with no problem, 1 with problems, and 2 when its
// configuration or a rule failed (then its report is not to be trusted).
func (ESLint) Parse(out *ToolOutput) ([]scan.Finding, []Problem, error) {
	var files []eslintFile
	if err := json.Unmarshal(out.Stdout, &files); err != nil || out.ExitCode > 1 || files == nil {
		if err == nil {
			err = fmt.Errorf("exit status %d", out.ExitCode)
		}
		return nil, nil, reportError(SourceESLint, out, err)
	}
	var found []scan.Finding
	var problems []Problem
	for _, f := range files {
		for _, m := range f.Messages {
			if m.Fatal || m.RuleID == nil {
				problems = append(problems, Problem{Path: f.FilePath, Line: m.Line, Reason: m.Message})
				continue
			}
			if m.Line < 1 {
				continue
			}
			id := *m.RuleID
			ef := externalFinding(SourceESLint, id, eslintSeverity(id, m.Message), f.FilePath, m.Line, m.Column, m.Message)
			ef.Fix = m.Fix.lineFix()
			found = append(found, ef)
		}
	}
	return found, problems, nil
}

// eslintSeverity is a finding's severity before the catalog caps it: ESLint's own severity is only
// what our config says, so it tells nothing; the catalog's severity is the finding's. detect-child-process reports both a require of
// child_process (low: a place to look) and exec() of a non-literal command (a shell command
// built at run time: high).
func eslintSeverity(rule, msg string) voting.Severity {
	if _, ok := eslintRules[rule]; !ok {
		return voting.SeverityLow // a rule the config does not turn on (none today): reported, never deciding
	}
	if rule == "security/detect-child-process" && !strings.Contains(msg, "non Literal") {
		return voting.SeverityLow
	}
	return voting.SeverityCritical // capped by the catalog
}

// eslintRules is the catalog of the rules debatebot's config turns on (tools/eslint/eslint.config.mjs).
var eslintRules = map[string]externalRule{
	"security/detect-child-process":                  {title: "child_process.exec with a non-literal command", severity: voting.SeverityHigh, fix: "use execFile/spawn with a fixed program and an argument array, and check input against an allowlist"},
	"security/detect-eval-with-expression":           {title: "eval of an expression", severity: voting.SeverityHigh, fix: "parse the input (JSON.parse) instead of evaluating it"},
	"security/detect-disable-mustache-escape":        {title: "template escaping disabled", severity: voting.SeverityHigh, fix: "keep escapeMarkup on; mark individual trusted values safe instead"},
	"security/detect-bidi-characters":                {title: "bidirectional control characters (Trojan Source)", severity: voting.SeverityHigh, fix: "remove the bidirectional Unicode control characters"},
	"security/detect-invisible-characters":           {title: "invisible characters in code", severity: voting.SeverityMedium, fix: "remove the invisible Unicode characters"},
	"security/detect-buffer-noassert":                {title: "Buffer read/write with noAssert", severity: voting.SeverityMedium, fix: "drop the noAssert flag so that offsets are checked"},
	"security/detect-new-buffer":                     {title: "new Buffer with a non-literal argument", severity: voting.SeverityMedium, fix: "use Buffer.from or Buffer.alloc"},
	"security/detect-no-csrf-before-method-override": {title: "CSRF middleware before methodOverride", severity: voting.SeverityMedium, fix: "register methodOverride before the CSRF middleware"},
	"security/detect-pseudoRandomBytes":              {title: "crypto.pseudoRandomBytes", severity: voting.SeverityMedium, fix: "use crypto.randomBytes"},
	"security/detect-non-literal-fs-filename":        {title: "fs call with a non-literal path", severity: voting.SeverityLow, fix: "resolve the path inside a fixed root and reject '..' before the fs call"},
	"security/detect-non-literal-regexp":             {title: "RegExp built from a non-literal", severity: voting.SeverityLow, fix: "escape input before building a RegExp from it, or bound its length"},
	"security/detect-non-literal-require":            {title: "require of a non-literal", severity: voting.SeverityLow, fix: "require modules by literal names (a map from allowed names to modules)"},
	"security/detect-unsafe-regex":                   {title: "regular expression open to catastrophic backtracking", severity: voting.SeverityLow, fix: "rewrite the expression without nested quantifiers, or bound the input's length"},
	"security/detect-possible-timing-attacks":        {title: "secret compared with ==", severity: voting.SeverityLow, fix: "compare secrets with crypto.timingSafeEqual"},
	"no-eval":                                 {title: "eval used", severity: voting.SeverityMedium, topic: rules.TopicSecurity, fix: "parse the input (JSON.parse) instead of evaluating it"},
	"no-implied-eval":                         {title: "string evaluated by setTimeout/setInterval", severity: voting.SeverityMedium, topic: rules.TopicSecurity, fix: "pass a function to setTimeout/setInterval, not a string"},
	"no-new-func":                             {title: "Function constructor (eval)", severity: voting.SeverityMedium, topic: rules.TopicSecurity, fix: "write the function in the source instead of building it from a string"},
	"no-unsafe-finally":                       {title: "control flow in finally overrides the try block", severity: voting.SeverityMedium, fix: "do not return, throw, break or continue in finally"},
	"no-self-assign":                          {title: "variable assigned to itself", severity: voting.SeverityMedium, fix: "assign the value that was meant"},
	"no-self-compare":                         {title: "value compared with itself", severity: voting.SeverityMedium, fix: "compare with the value that was meant (Number.isNaN for NaN)"},
	"no-dupe-keys":                            {title: "duplicate key in an object literal", severity: voting.SeverityMedium, fix: "remove or rename the duplicate key: the later one silently wins"},
	"no-dupe-else-if":                         {title: "duplicate condition in an if-else-if chain", severity: voting.SeverityMedium, fix: "fix the repeated condition: its branch can never run"},
	"no-duplicate-case":                       {title: "duplicate case label", severity: voting.SeverityMedium, fix: "fix the repeated case: its branch can never run"},
	"no-unreachable":                          {title: "unreachable code", severity: voting.SeverityLow, fix: "remove the code after return/throw/break, or fix the control flow"},
	"no-unsafe-negation":                      {title: "negation of the left operand of in/instanceof", severity: voting.SeverityMedium, fix: "negate the whole expression: !(a in b)"},
	"no-unsafe-optional-chaining":             {title: "optional chain used where undefined throws", severity: voting.SeverityMedium, fix: "handle undefined before using the result of the optional chain"},
	"no-compare-neg-zero":                     {title: "comparison with -0", severity: voting.SeverityMedium, fix: "use Object.is(x, -0)"},
	"no-constant-binary-expression":           {title: "expression whose value cannot change", severity: voting.SeverityMedium, fix: "fix the operator precedence or the comparison: the result is always the same"},
	"no-async-promise-executor":               {title: "async Promise executor", severity: voting.SeverityMedium, fix: "do not pass an async function to new Promise: its errors are lost"},
	"no-setter-return":                        {title: "value returned from a setter", severity: voting.SeverityLow, fix: "do not return a value from a setter"},
	"getter-return":                           {title: "getter without a return", severity: voting.SeverityMedium, fix: "return a value from every path of the getter"},
	"for-direction":                           {title: "for loop counting the wrong way", severity: voting.SeverityMedium, fix: "fix the loop's update so that it moves toward its end condition"},
	"use-isnan":                               {title: "comparison with NaN", severity: voting.SeverityMedium, fix: "use Number.isNaN"},
	"valid-typeof":                            {title: "typeof compared with an impossible string", severity: voting.SeverityMedium, fix: "compare typeof with a valid type name"},
	"no-func-assign":                          {title: "function declaration reassigned", severity: voting.SeverityMedium, fix: "use a variable for the value, not the function's name"},
	"no-import-assign":                        {title: "import binding assigned", severity: voting.SeverityMedium, fix: "do not assign to an imported binding"},
	"no-loss-of-precision":                    {title: "number literal that loses precision", severity: voting.SeverityMedium, fix: "use a BigInt or a string for the value"},
	"@typescript-eslint/no-floating-promises": {title: "promise neither awaited nor handled", severity: voting.SeverityMedium, fix: "await the promise, return it, or handle its rejection with .catch"},
	"@typescript-eslint/no-misused-promises":  {title: "promise where a callback's result is ignored or a condition expects a boolean", severity: voting.SeverityMedium, fix: "await inside a function whose promise is handled; test the awaited value, not the promise"},
	"@typescript-eslint/await-thenable":       {title: "await of a value that is not a promise", severity: voting.SeverityLow, fix: "await the promise the call returns, or drop the await"},
	"@typescript-eslint/no-for-in-array":      {title: "for-in over an array", severity: voting.SeverityMedium, fix: "iterate with for-of or an index: for-in yields string keys and inherited properties"},
	"@typescript-eslint/no-array-delete":      {title: "delete of an array element", severity: voting.SeverityMedium, fix: "remove the element with splice: delete leaves a hole and keeps the length"},
	"@typescript-eslint/no-base-to-string":    {title: "object turned into \"[object Object]\"", severity: voting.SeverityLow, fix: "format the fields that are meant, or give the type a toString"},
}

func registerESLint() {
	for id, r := range eslintRules {
		switch {
		case strings.HasPrefix(id, "security/"):
			r.topic = rules.TopicSecurity
			r.url = "https://github.com/eslint-community/eslint-plugin-security/blob/main/docs/rules/" + strings.TrimPrefix(id, "security/") + ".md"
		case strings.HasPrefix(id, "@typescript-eslint/"):
			r.topic = rules.TopicCorrectness
			r.url = "https://typescript-eslint.io/rules/" + strings.TrimPrefix(id, "@typescript-eslint/")
		default:
			if r.topic == "" {
				r.topic = rules.TopicCorrectness
			}
			r.url = "https://eslint.org/docs/latest/rules/" + id
		}
		eslintRules[id] = r
	}
	externalCatalogs[SourceESLint] = eslintRules
	otherURLs[SourceESLint] = "https://eslint.org/docs/latest/rules/"
	otherTopics[SourceESLint] = rules.TopicCorrectness
}
