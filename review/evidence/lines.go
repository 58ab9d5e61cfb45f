package evidence

import (
	"regexp"
	"strings"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// lineAnalyzer runs line-level checks over added lines of Python, JavaScript/TypeScript and Java
// files, and of Go files that have no parsable content (a diff of a modified file). Hand-written
// because it must say something when the external analyzers (bandit, ESLint, ...) are not
// installed and when only hunks are known, which no analyzer reads; where both report the same
// weakness, the findings merge (see corroborate).
type lineAnalyzer struct{}

func (lineAnalyzer) Name() string { return "lines" }

// lineRule is one line-level check.
type lineRule struct {
	rule  string
	langs string // space-separated languages
	re    *regexp.Regexp
	// safe, when it matches the line, means the safe form: no finding.
	safe *regexp.Regexp
	// near must match the line or one of the three lines around it.
	near   *regexp.Regexp
	inLoop bool
	// fileNeeds must match somewhere in the file's added lines or content.
	fileNeeds *regexp.Regexp
	msg       string
}

var (
	sqlKeyword = `\s*(?:select|insert\s+into|update\s+\w+\s+set|delete\s+from)\b`
	// sqlConcat: a SQL literal in double or single quotes, closed and followed by +, % or
	// .format( with a variable.
	sqlConcat  = `(?i)(?:"` + sqlKeyword + `[^"]*"|'` + sqlKeyword + `[^']*')\s*(?:\+\s*[A-Za-z_$(]|%\s*[A-Za-z_(]|\.format\()`
	secretName = regexp.MustCompile(`(?i)token|secret|nonce|salt|passw|session|otp|csrf|api_?key|reset`)
	password   = regexp.MustCompile(`(?i)passw|pwd`)
)

var lineRules = []lineRule{
	// SQL built from strings, in any language: a SQL literal followed by concatenation,
	// interpolation or formatting with a variable.
	{rule: rules.RuleSQLInjection, langs: "python javascript typescript java go kotlin ruby php", re: regexp.MustCompile(sqlConcat), msg: "SQL text is concatenated or formatted with a variable"},
	{rule: rules.RuleSQLInjection, langs: "python", re: regexp.MustCompile(`(?i)\bf(?:"(?:select|insert|update|delete)\b[^"]*\{[^}]+\}|'(?:select|insert|update|delete)\b[^']*\{[^}]+\})`), msg: "an f-string interpolates a value into SQL"},
	{rule: rules.RuleSQLInjection, langs: "javascript typescript", re: regexp.MustCompile(`(?i)\x60\s*(?:select|insert|update|delete)\b[^\x60]*\$\{[^}]+\}`), msg: "a template literal interpolates a value into SQL"},
	{rule: rules.RuleSQLInjection, langs: "go", re: regexp.MustCompile(`(?i)fmt\.Sprintf\(\s*"\s*(?:select|insert|update|delete)\b[^"]*%[sv][^"]*"\s*,`), msg: "fmt.Sprintf formats a value into SQL"},

	// Commands.
	{rule: rules.RuleCommandInjection, langs: "python", re: regexp.MustCompile(`\bos\.(?:system|popen)\(\s*(?:f["']|[A-Za-z_][\w.]*\s*[+%)]|["'][^"']*["']\s*[+%])`), msg: "os.system runs a shell command built from a variable"},
	{rule: rules.RuleCommandInjection, langs: "python", re: regexp.MustCompile(`\bsubprocess\.\w+\(.*shell\s*=\s*True`), safe: regexp.MustCompile(`subprocess\.\w+\(\s*["'][^"'{}]*["']\s*,`), msg: "subprocess runs with shell=True on a non-constant command"},
	{rule: rules.RuleCommandInjection, langs: "javascript typescript", re: regexp.MustCompile(`\bexec(?:Sync)?\(\s*(?:\x60[^\x60]*\$\{|[A-Za-z_$][\w.$]*\s*[+,)]|["'][^"']*["']\s*\+)`), fileNeeds: regexp.MustCompile(`child_process`), safe: regexp.MustCompile(`\.exec\(`), msg: "child_process.exec runs a shell command built from a variable"},
	{rule: rules.RuleCommandInjection, langs: "java kotlin", re: regexp.MustCompile(`\.exec\(\s*(?:[A-Za-z_][\w.]*\s*[+)]|"[^"]*"\s*\+)`), fileNeeds: regexp.MustCompile(`Runtime|ProcessBuilder`), msg: "Runtime.exec runs a command built from a variable"},
	{rule: rules.RuleCommandInjection, langs: "go", re: regexp.MustCompile(`exec\.Command(?:Context)?\((?:ctx,\s*)?(?:[a-z_][\w.]*\s*[,)]|"(?:ba)?sh",\s*"-c",\s*[a-z_])`), msg: "exec.Command runs a command chosen or built at run time"},

	// TLS.
	{rule: rules.RuleTLSVerifyOff, langs: "python", re: regexp.MustCompile(`\bverify\s*=\s*False\b`), msg: "requests are sent with verify=False"},
	{rule: rules.RuleTLSVerifyOff, langs: "javascript typescript", re: regexp.MustCompile(`rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['"]?0`), msg: "certificate verification is turned off"},
	{rule: rules.RuleTLSVerifyOff, langs: "java kotlin", re: regexp.MustCompile(`NoopHostnameVerifier|ALLOW_ALL_HOSTNAME_VERIFIER|setHostnameVerifier\(\s*\(\s*\w*\s*,\s*\w*\s*\)\s*->\s*true|TrustAllCerts|trustAll`), msg: "hostname or certificate verification is turned off"},
	{rule: rules.RuleTLSVerifyOff, langs: "go", re: regexp.MustCompile(`InsecureSkipVerify\s*[:=]\s*true`), msg: "InsecureSkipVerify is set to true"},

	// Weak hashes of passwords.
	{rule: rules.RuleWeakPasswordHash, langs: "python", re: regexp.MustCompile(`\bhashlib\.(?:md5|sha1|sha256|new\(\s*["'](?:md5|sha1)["'])`), near: password, msg: "a password is hashed with a fast hash"},
	{rule: rules.RuleWeakPasswordHash, langs: "javascript typescript", re: regexp.MustCompile(`createHash\(\s*["'](?:md5|sha1|sha256)["']`), near: password, msg: "a password is hashed with a fast hash"},
	{rule: rules.RuleWeakPasswordHash, langs: "java kotlin", re: regexp.MustCompile(`MessageDigest\.getInstance\(\s*"(?:MD5|SHA-1|SHA1|SHA-256)"`), near: password, msg: "a password is hashed with a fast hash"},
	{rule: rules.RuleWeakPasswordHash, langs: "go", re: regexp.MustCompile(`\b(?:md5|sha1|sha256)\.(?:Sum|Sum256|New)\(`), near: password, msg: "a password is hashed with a fast hash"},

	// Predictable randomness for secrets.
	{rule: rules.RuleInsecureRandom, langs: "python", re: regexp.MustCompile(`\brandom\.(?:random|randint|choice|choices|getrandbits|randrange|sample)\(`), near: secretName, msg: "random (not secrets) generates a secret value"},
	{rule: rules.RuleInsecureRandom, langs: "javascript typescript", re: regexp.MustCompile(`Math\.random\(\)`), near: secretName, msg: "Math.random generates a secret value"},
	{rule: rules.RuleInsecureRandom, langs: "java kotlin", re: regexp.MustCompile(`new Random\(|Math\.random\(\)`), near: secretName, msg: "java.util.Random generates a secret value"},

	// Paths from requests.
	{rule: rules.RulePathTraversal, langs: "python", re: regexp.MustCompile(`\b(?:open|send_file|send_from_directory|os\.path\.join|os\.remove|shutil\.\w+)\(.*\brequest\.(?:args|form|values|files|GET|POST|query_params|path_params)`), safe: regexp.MustCompile(`secure_filename\(|send_from_directory\([^,]+,\s*secure_filename`), msg: "a file path is taken from the request"},
	{rule: rules.RulePathTraversal, langs: "javascript typescript", re: regexp.MustCompile(`\b(?:readFile|readFileSync|createReadStream|writeFile|writeFileSync|unlink|sendFile|download|path\.join|path\.resolve)\(.*\breq\.(?:params|query|body)`), safe: regexp.MustCompile(`path\.basename\(\s*req\.`), msg: "a file path is taken from the request"},
	{rule: rules.RulePathTraversal, langs: "java kotlin", re: regexp.MustCompile(`(?:new File|Paths\.get|Path\.of|new FileInputStream)\(.*getParameter\(`), msg: "a file path is taken from the request"},

	// Per-iteration costs.
	{rule: rules.RuleCallInLoop, langs: "python", inLoop: true, re: regexp.MustCompile(`\.(?:execute|executemany|fetchone|fetchall)\(|\.objects\.(?:get|filter)\(|\bsession\.query\(|\brequests\.(?:get|post|put|delete|patch)\(|\burlopen\(|\bhttpx\.\w+\(`), msg: "a database query or HTTP request runs on every iteration"},
	{rule: rules.RuleCallInLoop, langs: "javascript typescript", inLoop: true, re: regexp.MustCompile(`\bfetch\(|\baxios\.\w+\(|\.query\(|\.findOne\(|\.findById\(|\.findUnique\(|\bhttps?\.get\(`), msg: "a database query or HTTP request runs on every iteration"},
	{rule: rules.RuleCallInLoop, langs: "java kotlin", inLoop: true, re: regexp.MustCompile(`\.(?:executeQuery|executeUpdate|execute)\(|Repository\.find\w*\(|repository\.find\w*\(|restTemplate\.\w+\(|httpClient\.send\(`), msg: "a database query or HTTP request runs on every iteration"},
	{rule: rules.RuleCallInLoop, langs: "go", inLoop: true, re: regexp.MustCompile(`\.(?:Query|QueryRow|Exec|QueryContext|QueryRowContext|ExecContext)\(|\bhttp\.(?:Get|Post|Head)\(|[cC]lient\.Do\(`), msg: "a database query or HTTP request runs on every iteration"},
	{rule: rules.RuleStringConcatLoop, langs: "python", inLoop: true, re: regexp.MustCompile(`^\s*\w+\s*\+=\s*(?:f?["']|str\()`), msg: "a string is built by += on every iteration"},
	{rule: rules.RuleStringConcatLoop, langs: "javascript typescript", inLoop: true, re: regexp.MustCompile(`^\s*\w+\s*\+=\s*(?:["'\x60]|String\()`), msg: "a string is built by += on every iteration"},
	{rule: rules.RuleStringConcatLoop, langs: "java kotlin", inLoop: true, re: regexp.MustCompile(`^\s*\w+\s*\+=\s*(?:"|String\.valueOf\()`), msg: "a String is built by += on every iteration"},
	{rule: rules.RuleDeferInLoop, langs: "go", inLoop: true, re: regexp.MustCompile(`^\s*defer\s`), msg: "defer runs at function return, not per iteration"},
	{rule: rules.RuleUnboundedGo, langs: "go", inLoop: true, re: regexp.MustCompile(`^\s*go\s+(?:func\b|\w+\()`), msg: "a goroutine is started per iteration with no bound"},

	// Swallowed errors.
	{rule: rules.RuleIgnoredError, langs: "javascript typescript java kotlin", re: regexp.MustCompile(`catch\s*(?:\([^)]*\))?\s*\{\s*\}`), msg: "an exception is caught and dropped"},
	{rule: rules.RuleIgnoredError, langs: "go", re: regexp.MustCompile(`^\s*(?:\w+,\s*)?_\s*(?::=|=)\s*(?:os|json|strconv|io|ioutil|yaml)\.\w+\(`), msg: "an error is assigned to _"},
}

var (
	loopHeader = map[string]*regexp.Regexp{
		"python":     regexp.MustCompile(`^\s*(?:async\s+)?(?:for|while)\b.*:\s*(?:#.*)?$`),
		"javascript": regexp.MustCompile(`^\s*(?:for|while)\s*\(|\.(?:forEach|map|flatMap|filter|reduce)\(\s*(?:async\s*)?(?:\([^)]*\)|\w+)\s*=>\s*\{\s*$`),
		"java":       regexp.MustCompile(`^\s*(?:for|while)\s*\(|\.forEach\(`),
		"go":         regexp.MustCompile(`^\s*for\b`),
	}
	pyExcept = regexp.MustCompile(`^\s*except(?:\s+[\w.]+(?:\s+as\s+\w+)?)?\s*:\s*$`)
	pyPass   = regexp.MustCompile(`^\s*pass\s*$`)
)

func loopLang(lang string) string {
	switch lang {
	case "typescript":
		return "javascript"
	case "kotlin":
		return "java"
	}
	return lang
}

// view is the sequence of new-side lines the analyzer can see in order: the whole file when its
// content is known, otherwise each hunk's added and context lines.
type viewLine struct {
	n     int
	text  string
	added bool
	// start marks the first line of a hunk, where loop tracking restarts.
	start bool
}

func view(f *change.File) []viewLine {
	var out []viewLine
	if f.HasContent {
		for i, t := range strings.Split(string(f.Content), "\n") {
			out = append(out, viewLine{n: i + 1, text: t, added: f.IsAdded(i + 1), start: i == 0})
		}
		return out
	}
	for _, h := range f.Hunks {
		first := true
		for _, l := range h.Lines {
			if l.Kind == change.Deleted {
				continue
			}
			out = append(out, viewLine{n: l.New, text: l.Text, added: l.Kind == change.Added, start: first})
			first = false
		}
	}
	return out
}

// inLoops marks the lines inside a loop body by indentation: a line is in a loop when an earlier,
// less indented line is a loop header and nothing at or left of that header came between.
func inLoops(lines []viewLine, lang string) []bool {
	header := loopHeader[loopLang(lang)]
	out := make([]bool, len(lines))
	if header == nil {
		return out
	}
	var stack []int
	for i, l := range lines {
		if l.start {
			stack = stack[:0]
		}
		trimmed := strings.TrimSpace(l.text)
		if trimmed == "" {
			continue
		}
		ind := indent(l.text)
		for len(stack) > 0 && ind <= stack[len(stack)-1] {
			stack = stack[:len(stack)-1]
		}
		out[i] = len(stack) > 0
		if header.MatchString(l.text) {
			stack = append(stack, ind)
		}
	}
	return out
}

func indent(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

func (lineAnalyzer) Analyze(s *scan.Scan) {
	for _, f := range s.CodeFiles() {
		lang := f.Language()
		if lang == "go" {
			if _, _, ok := s.Go(f); ok {
				continue // the AST checks cover it
			}
		}
		lines := view(f)
		loop := inLoops(lines, lang)
		fileText := ""
		var flow *hunkFlow // Go: what the visible lines assign (golines.go), built on first use
		for i, l := range lines {
			if !l.added {
				continue
			}
			code := stripComment(l.text, lang)
			for _, r := range lineRules {
				if !strings.Contains(" "+r.langs+" ", " "+lang+" ") || (r.inLoop && !loop[i]) {
					continue
				}
				if !r.re.MatchString(code) || (r.safe != nil && r.safe.MatchString(code)) {
					continue
				}
				if r.near != nil && !nearMatch(lines, i, r.near) {
					continue
				}
				if lang == "go" && (r.rule == rules.RuleSQLInjection || r.rule == rules.RuleCommandInjection) {
					if flow == nil {
						flow = newHunkFlow(lines)
					}
					if flow.safe(r.rule, code) {
						continue // only constant text or a fixed program reaches the sink
					}
				}
				if r.fileNeeds != nil {
					if fileText == "" {
						fileText = joinView(lines)
					}
					if !r.fileNeeds.MatchString(fileText) {
						continue
					}
				}
				s.Report(r.rule, f.Path, l.n, r.msg)
			}
			if lang == "python" && pyExcept.MatchString(l.text) && i+1 < len(lines) && pyPass.MatchString(lines[i+1].text) {
				s.Report(rules.RuleIgnoredError, f.Path, l.n, "an exception is caught and silenced with pass")
			}
		}
	}
}

func nearMatch(lines []viewLine, i int, re *regexp.Regexp) bool {
	for j := max(0, i-3); j <= min(len(lines)-1, i+3); j++ {
		if re.MatchString(lines[j].text) {
			return true
		}
	}
	return false
}

func joinView(lines []viewLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// stripComment drops a trailing line comment so that commented-out code does not count; string
// contents are kept, which is what the SQL and command rules look at.
func stripComment(s, lang string) string {
	t := strings.TrimSpace(s)
	switch lang {
	case "python", "ruby", "shell":
		if strings.HasPrefix(t, "#") {
			return ""
		}
	default:
		if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "*") || strings.HasPrefix(t, "/*") {
			return ""
		}
	}
	return s
}
