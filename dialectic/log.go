package dialectic

import (
	"regexp"
	"slices"
	"strings"
)

// Bounds of what is read from a failing log: the log is untrusted and may be huge.
const (
	// MaxLogBytes is how much of a job's log is read (its end, where the failure is).
	MaxLogBytes = 1 << 20
	// MaxLogLines and MaxLineBytes bound the relevant lines a debate shows.
	MaxLogLines  = 40
	MaxLineBytes = 300
)

var (
	// timestamp is the prefix GitHub Actions puts on every log line.
	timestamp = regexp.MustCompile(`^\x{FEFF}?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?`)
	ansi      = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
	// errorLine marks a line that states an error: the runner's ##[error] command, a compiler's
	// or test runner's wording, an errno code.
	errorLine = regexp.MustCompile(`(?i)^##\[error\]|^::error\b|\berror\b[:\[]|^error\b|\bfail(?:ed|ure)?\b|\bpanic:|\bfatal\b|\bexception\b|\b(?:ENOENT|EACCES|ENOSPC|ETIMEDOUT|ECONNRESET|EADDRINUSE)\b|\bcannot find\b|\bundefined:|\bno such file\b|\btimed out\b`)
	// genericExit is the runner's closing line, which says nothing of the cause.
	genericExit = regexp.MustCompile(`(?i)process completed with exit code \d+|^##\[error\]the operation was canceled`)
	command     = regexp.MustCompile(`^##\[(?:error|warning|notice|debug|group|endgroup)\]|^::(?:error|warning|notice)[^:]*::`)
)

// CleanLine strips a log line of its timestamp, colour codes and control characters.
func CleanLine(s string) string {
	s = timestamp.ReplaceAllString(s, "")
	s = ansi.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return -1
		}
		return r
	}, s)
	return strings.TrimRight(s, " \t")
}

// ErrorMessage is the message of a log's first error: the first line that states one, other
// than the runner's closing "Process completed with exit code N", with the runner's command
// prefix removed; the closing line itself when nothing else states an error.
func ErrorMessage(log string) string {
	generic := ""
	for _, raw := range strings.Split(log, "\n") {
		line := CleanLine(raw)
		if !errorLine.MatchString(line) {
			continue
		}
		msg := strings.TrimSpace(command.ReplaceAllString(line, ""))
		if msg == "" {
			continue
		}
		if genericExit.MatchString(line) {
			if generic == "" {
				generic = msg
			}
			continue
		}
		return clipText(msg, MaxLineBytes)
	}
	return generic
}

// RelevantLines are the lines of a log around its errors, at most MaxLogLines of at most
// MaxLineBytes each: each error line with the two lines before it, in order, without repeats.
func RelevantLines(log string) []string {
	lines := strings.Split(log, "\n")
	keep := make([]bool, len(lines))
	for i, raw := range lines {
		if errorLine.MatchString(CleanLine(raw)) {
			for j := max(0, i-2); j <= i; j++ {
				keep[j] = true
			}
		}
	}
	var out []string
	for i, raw := range lines {
		if !keep[i] {
			continue
		}
		line := CleanLine(raw)
		if strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, clipText(line, MaxLineBytes))
		if len(out) == MaxLogLines {
			break
		}
	}
	return out
}

// pathInMessage finds file paths an error names: "src/app.ts:12:3", "./pkg/x.go", "'/a/b.txt'".
var pathInMessage = regexp.MustCompile(`(?:\./)?(?:[\w.@-]+/)+[\w.@-]+\.\w+|\b[\w-]+\.(?:go|py|js|jsx|ts|tsx|rb|java|kt|rs|c|h|cc|cpp|cs|php|sh|yml|yaml|json|toml)\b`)

// FilesIn lists the relative paths a message names, without line numbers, in order.
func FilesIn(message string) []string {
	var out []string
	for _, m := range pathInMessage.FindAllString(message, -1) {
		m = strings.TrimPrefix(m, "./")
		if strings.HasPrefix(m, "/") || strings.Contains(m, "://") {
			continue
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
