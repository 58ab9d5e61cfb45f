package dialectic

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"unicode"
)

// TaskID is seed 000's task id: the canonical text (lowercased, punctuation other than hyphens
// and underscores removed, whitespace collapsed, common verb forms stemmed) hashed with SHA-256,
// of which the first 16 hexadecimal characters are kept. Texts that differ only in case,
// punctuation or the form of a verb are the same task.
func TaskID(text string) string {
	sum := sha256.Sum256([]byte(Canonical(text)))
	return hex.EncodeToString(sum[:])[:16]
}

// stopWords are dropped from a canonical task: the seed's example ("Fix the authentication
// test" → "fix authentication test") drops the article.
var stopWords = map[string]bool{"the": true, "a": true, "an": true}

// Canonical is the text a task id hashes.
func Canonical(text string) string {
	text = strings.ToLower(text)
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			return r
		case unicode.IsSpace(r):
			return ' '
		}
		return ' '
	}, text)
	var words []string
	for _, w := range strings.Fields(text) {
		if stopWords[w] {
			continue
		}
		words = append(words, stem(w))
	}
	return strings.Join(words, " ")
}

// stems are the verbs whose forms the canonical text unifies ("fixing", "fixed" → "fix"). The
// list is short on purpose: stemming every word would merge tasks with different goals.
var stems = func() map[string]string {
	m := map[string]string{}
	for _, v := range []string{"fix", "add", "build", "test", "run", "update", "remove", "install", "deploy", "lint", "check",
		"migrate", "refactor", "rename", "upgrade", "bump", "revert", "merge", "release", "format", "compile", "publish"} {
		m[v] = v
		m[v+"s"], m[v+"es"], m[v+"ed"], m[v+"ing"] = v, v, v, v
	}
	// Doubled final consonants and a dropped e.
	for form, v := range map[string]string{"running": "run", "ran": "run", "built": "build", "bumped": "bump", "updating": "update",
		"updated": "update", "removing": "remove", "removed": "remove", "merging": "merge", "merged": "merge", "releasing": "release",
		"released": "release", "compiling": "compile", "compiled": "compile", "migrating": "migrate", "migrated": "migrate",
		"upgrading": "upgrade", "upgraded": "upgrade", "renaming": "rename", "renamed": "rename"} {
		m[form] = v
	}
	return m
}()

func stem(w string) string {
	if s, ok := stems[w]; ok {
		return s
	}
	return w
}

// FingerprintChars is how many characters of an error's message its fingerprint keeps (seed 000).
const FingerprintChars = 50

var (
	// errorCode finds a leading error code: ENOENT, EACCES, TS2345, E0308, CS0103, SC2086, npm's
	// ERR_MODULE_NOT_FOUND.
	errorCode = regexp.MustCompile(`^\s*(?:error\s*)?\[?([A-Z][A-Z0-9_]{2,}|[A-Z]{1,3}\d{3,5})\]?\s*[:\s]`)
	// quoted holds quoted text that names a path ('/a/b.txt', "src\\x.go").
	quotedPath = regexp.MustCompile(`(['"\x60])[^'"\x60]*[/\\][^'"\x60]*(['"\x60])`)
	// pathLike is a word that is a path (it has a slash, or it is a file name with an extension
	// and a line number), with the line and column numbers that may follow it.
	pathLike = regexp.MustCompile(`(?:[A-Za-z]:)?[\w.@~+-]*[/\\][\w./\\@~+-]*(?::\d+)*|\b[\w-]+\.[A-Za-z]{1,5}:\d+(?::\d+)*`)
	// lineRef is a line or column reference in words: "line 12", "at 3:14", "(12,5)".
	lineRef = regexp.MustCompile(`(?i)\b(?:line|ln|col|column)\s*\d+|\(\d+(?:[,:]\d+)*\)|\b\d+:\d+\b`)
	notWord = regexp.MustCompile(`[^a-z0-9_ ]+`)
)

// Fingerprint is seed 000's error identity: the error code (when the message starts with one)
// and the first 50 characters of the message, lowercased, with file paths and line numbers
// removed, so that the same error at another path or line is the same error:
//
//	"ENOENT: no such file or directory, open '/path/to/file.txt'" → "enoent no such file or directory open"
func Fingerprint(message string) string {
	message = strings.TrimSpace(firstLine(message))
	code := ""
	if m := errorCode.FindStringSubmatch(message); m != nil {
		code = strings.ToLower(m[1])
		message = message[len(m[0]):]
	}
	message = quotedPath.ReplaceAllString(message, " ")
	message = pathLike.ReplaceAllString(message, " ")
	message = lineRef.ReplaceAllString(message, " ")
	message = strings.Join(strings.Fields(notWord.ReplaceAllString(strings.ToLower(message), " ")), " ")
	if len(message) > FingerprintChars {
		message = strings.TrimSpace(message[:FingerprintChars])
	}
	return strings.TrimSpace(code + " " + message)
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\r\n")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// infrastructure are the fingerprints of failures of the machine rather than of the change: a
// retry or a new approach to the code cannot fix them, a human (or the CI's owner) must.
var infrastructure = regexp.MustCompile(`\b(?:enospc|no space left on device|etimedout|timed? ?out|timeout|econnreset|econnrefused|eai_again|` +
	`connection reset|network is unreachable|temporary failure in name resolution|could not resolve host|rate limit|` +
	`the runner has received a shutdown signal|lost communication with the server|runner .* lost|the operation was canceled|` +
	`exceeded the maximum execution time|out of memory|oom|killed|exit code 137|503 service unavailable|502 bad gateway|` +
	`enomem|cannot allocate memory|disk quota exceeded)\b`)

// Infrastructure reports whether an error is the infrastructure's (timeouts, a full disk, the
// network, a lost runner) rather than the change's.
func Infrastructure(message string) bool {
	return infrastructure.MatchString(strings.ToLower(message))
}
