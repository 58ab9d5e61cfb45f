package external

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// SourcePylint names pylint (PyCQA's linter for Python) as the source of findings.
const SourcePylint = "pylint"

// Pylint runs pylint's checks of errors (Debian's pylint, 2.16 on bookworm) over Python files,
// only those of pylintRules. pylint parses the files with astroid and never imports them, but a
// tree could still make it run code: a configuration file next to the files (pylintrc,
// setup.cfg, pyproject.toml) may name plugins to load and an init-hook to run, and the files'
// directories go at the front of sys.path. So pylint runs from pylint_driver.py, which copies the
// files under neutral names into an empty directory and runs pylint there with an empty
// configuration of ours, the options of Command, and Python isolated (-I). Each file is analysed
// alone: what it imports from the tree is not followed, and the checks that would need it
// (import-error, no-member) are not run.
type Pylint struct{}

// Name implements Tool.
func (Pylint) Name() string { return SourcePylint }

// Language implements Tool.
func (Pylint) Language() string { return "Python" }

// Handles implements Tool.
func (Pylint) Handles(p string) bool { return strings.EqualFold(path.Ext(p), ".py") }

// pylintMaxBytes bounds the files pylint analyses: its inference takes seconds per 50 KiB, and a
// larger file (a single-module framework) is left out with a note; the other Python tools still
// read it.
const pylintMaxBytes = 128 << 10

//go:embed pylint_driver.py
var pylintDriver string

// Command implements Tool: the interpreter is the one the pylint program names on its
// "#!" line (the one pylint is installed for).
func (Pylint) Command(files []string) (string, []string, error) {
	p, err := lookPath("pylint")
	if err != nil {
		return "", nil, err
	}
	python, err := scriptInterpreter(p)
	if err != nil {
		return "", nil, fmt.Errorf("pylint at %s: %w", p, err)
	}
	args := []string{"-I", "-c", pylintDriver, strconv.Itoa(pylintMaxBytes),
		"--disable=all", "--enable=" + strings.Join(pylintEnabled(), ","), "--load-plugins=",
		"--persistent=n", "--unsafe-load-any-extension=n", "--jobs=1", "--score=n", "--"}
	return python, append(args, files...), nil
}

// scriptInterpreter reads the program a script's "#!" line names ("#!/usr/bin/python3", or
// "#!/usr/bin/env python3", looked up on PATH).
func scriptInterpreter(script string) (string, error) {
	f, err := os.Open(script)
	if err != nil {
		return "", fmt.Errorf("failed to read the script: %w", err)
	}
	defer f.Close()
	first, err := bufio.NewReader(f).ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "#!") {
		return "", fmt.Errorf("not a script with a #! line")
	}
	fields := strings.Fields(strings.TrimPrefix(first, "#!"))
	if len(fields) == 0 {
		return "", fmt.Errorf("an empty #! line")
	}
	if path.Base(fields[0]) == "env" && len(fields) > 1 {
		return lookPath(fields[1])
	}
	return fields[0], nil
}

type pylintReport struct {
	Problems []struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	} `json:"problems"`
	Results *[]struct {
		Path    string `json:"path"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
		Symbol  string `json:"symbol"`
		Message string `json:"message"`
		ID      string `json:"message-id"`
	} `json:"results"`
}

// Parse implements Tool: the driver prints {"results": [...]} and exits 0; anything
// else (a traceback, an exit status) means pylint did not run.
func (Pylint) Parse(out *ToolOutput) ([]scan.Finding, []Problem, error) {
	var rep pylintReport
	if err := json.Unmarshal(out.Stdout, &rep); err != nil || rep.Results == nil || out.ExitCode != 0 {
		if err == nil && rep.Results == nil {
			err = fmt.Errorf("no results")
		}
		if err == nil {
			err = fmt.Errorf("exit status %d", out.ExitCode)
		}
		return nil, nil, reportError(SourcePylint, out, err)
	}
	var found []scan.Finding
	var problems []Problem
	for _, p := range rep.Problems {
		problems = append(problems, Problem{Path: p.Path, Reason: p.Reason})
	}
	for _, r := range *rep.Results {
		if r.Path == "" || r.Line < 1 || r.Symbol == "" {
			continue
		}
		if r.Symbol == "syntax-error" || r.Symbol == "astroid-error" || r.Symbol == "parse-error" {
			problems = append(problems, Problem{Path: r.Path, Line: r.Line, Reason: r.Message})
			continue
		}
		found = append(found, externalFinding(SourcePylint, r.Symbol, voting.SeverityMedium, r.Path, r.Line, r.Column, moduleNames.ReplaceAllString(r.Message, "")))
	}
	return found, problems, nil
}

// moduleNames are the neutral module names the driver gives the copies, when pylint names them.
var moduleNames = regexp.MustCompile(`\bm\d+\.`)

// pylintEnabled lists the checks of pylintRules, sorted, plus the messages that say a file
// could not be analysed.
func pylintEnabled() []string {
	out := []string{"syntax-error", "astroid-error", "parse-error"}
	for id := range pylintRules {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// pylintRules is the catalog of pylint 2.16's checks that run: errors that hold on one file read
// alone, and warnings that point at a bug rather than at style, with the most serious severity
// each may have. Checks that need the tree's other modules or its dependencies (import-error,
// no-member, no-name-in-module) and checks of style are not run.
var pylintRules = map[string]externalRule{
	// Names and values used where they do not exist.
	"used-before-assignment":          {title: "variable used before assignment", severity: voting.SeverityMedium, fix: "assign the variable on every path before it is read"},
	"undefined-variable":              {title: "undefined variable", severity: voting.SeverityMedium, fix: "define or import the name before it is used"},
	"undefined-loop-variable":         {title: "loop variable used after a loop that may not run", severity: voting.SeverityMedium, fix: "set the variable before the loop, or use it only inside the loop"},
	"cell-var-from-loop":              {title: "closure captures a loop variable", severity: voting.SeverityMedium, fix: "bind the loop variable as a default argument, or build the closure with functools.partial"},
	"access-member-before-definition": {title: "attribute read before it is defined", severity: voting.SeverityMedium, fix: "set the attribute in __init__ before it is read"},
	"function-redefined":              {title: "function or class defined twice", severity: voting.SeverityMedium, fix: "rename or remove one of the definitions"},
	"assignment-from-no-return":       {title: "result of a function that returns nothing assigned", severity: voting.SeverityMedium, fix: "return the value, or do not assign the call"},
	"assignment-from-none":            {title: "result of a function that returns None assigned", severity: voting.SeverityLow, fix: "return the value, or do not assign the call"},
	// Calls and operations that fail on the values they are given.
	"no-value-for-parameter":           {title: "argument missing in a call", severity: voting.SeverityMedium, fix: "pass every parameter that has no default"},
	"too-many-function-args":           {title: "too many arguments in a call", severity: voting.SeverityMedium, fix: "pass the arguments the function takes"},
	"unexpected-keyword-arg":           {title: "unknown keyword argument in a call", severity: voting.SeverityMedium, fix: "pass the keyword arguments the function takes"},
	"redundant-keyword-arg":            {title: "argument given both by position and by keyword", severity: voting.SeverityMedium, fix: "pass the argument once"},
	"missing-kwoa":                     {title: "keyword-only argument missing in a call", severity: voting.SeverityMedium, fix: "pass every keyword-only parameter that has no default"},
	"arguments-out-of-order":           {title: "arguments passed in the wrong order", severity: voting.SeverityMedium, fix: "pass the arguments in the order of the parameters, or by keyword"},
	"not-callable":                     {title: "call of a value that is not callable", severity: voting.SeverityMedium, fix: "call a function, not the value"},
	"not-an-iterable":                  {title: "iteration over a value that is not iterable", severity: voting.SeverityMedium, fix: "iterate over a sequence or an iterator"},
	"not-a-mapping":                    {title: "** of a value that is not a mapping", severity: voting.SeverityMedium, fix: "unpack a mapping"},
	"unsubscriptable-object":           {title: "subscript of a value that has no items", severity: voting.SeverityMedium, fix: "subscript a sequence or a mapping"},
	"unsupported-membership-test":      {title: "in test on a value that has no members", severity: voting.SeverityMedium, fix: "test membership in a container"},
	"unsupported-assignment-operation": {title: "item assignment on a value that does not support it", severity: voting.SeverityMedium, fix: "assign items of a mutable container"},
	"unsupported-delete-operation":     {title: "item deletion on a value that does not support it", severity: voting.SeverityMedium, fix: "delete items of a mutable container"},
	"invalid-unary-operand-type":       {title: "unary operator on a value of the wrong type", severity: voting.SeverityMedium, fix: "apply the operator to a value of a type that has it"},
	"unsupported-binary-operation":     {title: "binary operator on values of the wrong types", severity: voting.SeverityMedium, fix: "convert the operands to types the operator takes"},
	"invalid-sequence-index":           {title: "sequence indexed by a value that is not an integer", severity: voting.SeverityMedium, fix: "index sequences with integers or slices"},
	"invalid-slice-index":              {title: "slice bound that is not an integer", severity: voting.SeverityMedium, fix: "give slices integer bounds or None"},
	"unbalanced-tuple-unpacking":       {title: "unpacking takes more or fewer values than there are", severity: voting.SeverityMedium, fix: "unpack as many names as the sequence holds"},
	"unpacking-non-sequence":           {title: "unpacking of a value that is not a sequence", severity: voting.SeverityMedium, fix: "unpack a sequence"},
	"unhashable-member":                {title: "unhashable value used as a key or set member", severity: voting.SeverityMedium, fix: "use a hashable value (a tuple, a frozenset) as the key"},
	"bad-str-strip-call":               {title: "strip with a string of repeated characters", severity: voting.SeverityMedium, fix: "strip takes a set of characters: use removeprefix/removesuffix to remove a string"},
	"bad-reversed-sequence":            {title: "reversed() of a value that is not a sequence", severity: voting.SeverityMedium, fix: "reverse a sequence"},
	"invalid-envvar-value":             {title: "environment variable name that is not a string", severity: voting.SeverityMedium, fix: "name environment variables with strings"},
	"await-outside-async":              {title: "await outside an async function", severity: voting.SeverityMedium, fix: "make the function async, or do not await"},
	"bad-super-call":                   {title: "super() given the wrong class", severity: voting.SeverityMedium, fix: "pass the class being defined to super()"},
	// Format strings and logging calls whose arguments do not match.
	"too-many-format-args":          {title: "format string given too many arguments", severity: voting.SeverityMedium, fix: "give the format string exactly the arguments its placeholders take"},
	"too-few-format-args":           {title: "format string given too few arguments", severity: voting.SeverityMedium, fix: "give the format string exactly the arguments its placeholders take"},
	"bad-string-format-type":        {title: "format argument of the wrong type", severity: voting.SeverityMedium, fix: "pass a value of the type the placeholder takes"},
	"bad-format-string":             {title: "invalid format string", severity: voting.SeverityMedium, fix: "fix the format string's placeholders"},
	"missing-format-argument-key":   {title: "format placeholder without an argument", severity: voting.SeverityMedium, fix: "pass an argument for every placeholder"},
	"missing-format-string-key":     {title: "format placeholder without a key", severity: voting.SeverityMedium, fix: "pass a value for every key"},
	"truncated-format-string":       {title: "format string ends in the middle of a placeholder", severity: voting.SeverityMedium, fix: "complete or escape the placeholder"},
	"mixed-format-string":           {title: "format string mixes named and positional placeholders", severity: voting.SeverityMedium, fix: "use one kind of placeholder"},
	"format-needs-mapping":          {title: "named placeholders formatted with a value that is not a mapping", severity: voting.SeverityMedium, fix: "format named placeholders with a dict"},
	"logging-too-many-args":         {title: "logging call given too many arguments", severity: voting.SeverityMedium, fix: "give the message exactly the arguments its placeholders take"},
	"logging-too-few-args":          {title: "logging call given too few arguments", severity: voting.SeverityMedium, fix: "give the message exactly the arguments its placeholders take"},
	"unused-format-string-argument": {title: "format argument no placeholder uses", severity: voting.SeverityLow, fix: "remove the argument or add its placeholder"},
	// Exceptions.
	"bad-except-order":         {title: "except clause never reached (a broader one comes first)", severity: voting.SeverityMedium, fix: "catch the narrower exception first"},
	"catching-non-exception":   {title: "except of a class that is not an exception", severity: voting.SeverityMedium, fix: "catch exception classes"},
	"raising-bad-type":         {title: "raise of a value that is not an exception", severity: voting.SeverityMedium, fix: "raise an exception instance or class"},
	"notimplemented-raised":    {title: "raise NotImplemented", severity: voting.SeverityMedium, fix: "raise NotImplementedError"},
	"binary-op-exception":      {title: "except of an or/and of exceptions", severity: voting.SeverityMedium, fix: "catch a tuple of exceptions: except (A, B)"},
	"duplicate-except":         {title: "exception caught twice", severity: voting.SeverityLow, fix: "remove the second handler"},
	"lost-exception":           {title: "return or break in finally discards the exception", severity: voting.SeverityMedium, fix: "do not return or break in a finally block"},
	"raising-format-tuple":     {title: "exception given format arguments as a tuple", severity: voting.SeverityLow, fix: "format the message before raising"},
	"stop-iteration-return":    {title: "StopIteration raised in a generator", severity: voting.SeverityMedium, fix: "return from the generator instead of raising StopIteration"},
	"return-in-init":           {title: "__init__ returns a value", severity: voting.SeverityMedium, fix: "do not return a value from __init__"},
	"self-cls-assignment":      {title: "self or cls reassigned", severity: voting.SeverityLow, fix: "use another name"},
	"comparison-with-callable": {title: "comparison with a function instead of its result", severity: voting.SeverityMedium, fix: "call the function"},
	// Tests and statements that do nothing of what they say.
	"using-constant-test":                  {title: "condition that is always true or always false", severity: voting.SeverityMedium, fix: "test the value meant (call the function, drop the stray comma)"},
	"missing-parentheses-for-call-in-test": {title: "function tested instead of called", severity: voting.SeverityMedium, fix: "call the function in the test"},
	"comparison-of-constants":              {title: "comparison of two constants", severity: voting.SeverityLow, fix: "compare the values meant"},
	"nan-comparison":                       {title: "comparison with NaN", severity: voting.SeverityMedium, fix: "use math.isnan"},
	"assert-on-tuple":                      {title: "assert of a tuple (always true)", severity: voting.SeverityMedium, fix: "assert the condition and give the message after a comma, without parentheses"},
	"assert-on-string-literal":             {title: "assert of a string (always true)", severity: voting.SeverityLow, fix: "assert the condition"},
	"duplicate-key":                        {title: "dictionary key repeated", severity: voting.SeverityMedium, fix: "keep one entry per key"},
	"self-assigning-variable":              {title: "variable assigned to itself", severity: voting.SeverityMedium, fix: "assign the value meant"},
	"redeclared-assigned-name":             {title: "name assigned twice in one assignment", severity: voting.SeverityMedium, fix: "assign each name once"},
	"unreachable":                          {title: "unreachable code", severity: voting.SeverityLow, fix: "remove the code or the statement that ends the block before it"},
	"implicit-str-concat":                  {title: "strings concatenated implicitly (a missing comma)", severity: voting.SeverityMedium, fix: "add the comma between the strings, or join them explicitly"},
	"dangerous-default-value":              {title: "mutable default argument", severity: voting.SeverityLow, fix: "default to None and create the value in the function"},
	"modified-iterating-list":              {title: "list modified while it is iterated", severity: voting.SeverityMedium, fix: "iterate over a copy"},
	"modified-iterating-dict":              {title: "dict modified while it is iterated", severity: voting.SeverityMedium, fix: "iterate over a copy of the keys"},
	"modified-iterating-set":               {title: "set modified while it is iterated", severity: voting.SeverityMedium, fix: "iterate over a copy"},
	"dict-iter-missing-items":              {title: "dict unpacked in a loop without .items()", severity: voting.SeverityMedium, fix: "iterate over .items()"},
	"bad-open-mode":                        {title: "invalid mode given to open", severity: voting.SeverityMedium, fix: "use a valid mode string"},
	"invalid-all-object":                   {title: "__all__ holds something other than names", severity: voting.SeverityLow, fix: "list names as strings in __all__"},
	// Threads and resources.
	"useless-with-lock":             {title: "with on a lock created in the statement (it guards nothing)", severity: voting.SeverityMedium, topic: rules.TopicConcurrency, fix: "create the lock once and share it: with self._lock:"},
	"bad-thread-instantiation":      {title: "Thread created with its target as the first argument", severity: voting.SeverityMedium, topic: rules.TopicConcurrency, fix: "pass target= by keyword"},
	"method-cache-max-size-none":    {title: "unbounded cache on a method (keeps every instance alive)", severity: voting.SeverityMedium, topic: rules.TopicResource, fix: "cache a function of the values, or bound maxsize"},
	"shallow-copy-environ":          {title: "copy.copy of os.environ (changes the real environment)", severity: voting.SeverityMedium, fix: "use os.environ.copy() or dict(os.environ)"},
	"consider-using-with":           {title: "resource opened without with", severity: voting.SeverityLow, topic: rules.TopicResource, fix: "open the resource in a with statement so that it is closed on every path"},
	"pointless-exception-statement": {title: "exception created and not raised", severity: voting.SeverityMedium, fix: "raise the exception"},
}

func registerPylint() {
	for id, r := range pylintRules {
		if r.topic == "" {
			r.topic = rules.TopicCorrectness
		}
		r.url = "https://pylint.readthedocs.io/en/v2.16.2/user_guide/checkers/features.html"
		pylintRules[id] = r
	}
	externalCatalogs[SourcePylint] = pylintRules
	otherURLs[SourcePylint] = "https://pylint.readthedocs.io/en/v2.16.2/user_guide/checkers/features.html"
	otherTopics[SourcePylint] = rules.TopicCorrectness
}
