package redact

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"
)

// Credentials that look real to the detector (and are not).
const (
	testAWSKey      = "AKIAZ5XQ3R7NP2LWK4TB"
	testGitHubToken = "ghp_8kZq2Lw9XbT4mR7vN1cY6pH3sJ0dF5gA2eUx"
)

func TestRedactMasksSecretsWhereverTheyAre(t *testing.T) {
	for name, text := range map[string]string{
		"aws key in prose":      "The config at line 3 sets the key " + testAWSKey + " for production.",
		"github token in code":  "token := \"" + testGitHubToken + "\"",
		"literal signing key":   `jwtSigningKey := []byte("s3cr3t-Sign!ng")`,
		"literal password":      `db_password: "Tr0ub4dor&3x"`,
		"json of a log line":    `{"level":"warn","delivery_id":"` + testGitHubToken + `","message":"Refused a webhook delivery."}`,
		"secret twice per line": testAWSKey + " and again " + testAWSKey,
	} {
		t.Run(name, func(t *testing.T) {
			got := Redact(text)
			for _, s := range []string{testAWSKey, testGitHubToken, "s3cr3t-Sign!ng", "Tr0ub4dor&3x"} {
				if strings.Contains(got, s) {
					t.Errorf("Redact(%q) = %q still holds %s", text, got, s)
				}
			}
			if !strings.Contains(got, "********") {
				t.Errorf("Redact(%q) = %q shows no mask", text, got)
			}
		})
	}
}

func TestRedactLeavesOrdinaryTextAlone(t *testing.T) {
	for _, text := range []string{
		"",
		"short",
		"Approve with changes (consensus 0.72, consensus); 2 required change(s)",
		`password := os.Getenv("DB_PASSWORD")`,
		`apiKey := "${API_KEY}"`,
		"the token bucket refills every second; the key is the user id",
		"sha abc123def4567890abc123def4567890abc12345 of the head",
	} {
		if got := Redact(text); got != text {
			t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
		}
	}
}

func TestRedactingWriterRedactsEveryLogLine(t *testing.T) {
	var buf bytes.Buffer
	log := zerolog.New(RedactingWriter(&buf))
	log.Warn().Str("delivery_id", testGitHubToken).Msg("Refused a webhook delivery.")
	log.Info().Str("reply", "quoting "+testAWSKey).Msg("model replied")
	log.Info().Msg("nothing secret here")
	out := buf.String()
	if strings.Contains(out, testGitHubToken) || strings.Contains(out, testAWSKey) {
		t.Fatalf("a secret reached the log:\n%s", out)
	}
	if n := strings.Count(out, "\n"); n != 3 || !strings.Contains(out, "nothing secret here") || !strings.Contains(out, "ghp_********") {
		t.Fatalf("log lines were lost or not masked (%d lines):\n%s", n, out)
	}
}

func TestRedactIsSafeConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if strings.Contains(Redact(fmt.Sprintf("%d: %s", j, testGitHubToken)), testGitHubToken) {
					t.Error("not redacted")
				}
			}
		}()
	}
	wg.Wait()
}

// Redaction runs on every comment and log line: text without a secret must stay cheap.
//
//	go test ./review -run '^$' -bench Redact -benchmem
func BenchmarkRedact(b *testing.B) {
	logLine := `{"level":"info","repo":"acme/shop","pr":7,"delivery":"72d3162e-cc78-11e3-81ab-4c9367dc0958","time":"2026-11-22T21:00:00Z","message":"Handled a debate trigger."}` + "\n"
	comment := strings.Repeat("| SS-1 | security | `internal/export/users.go:31` | SQL built from strings: the query is formatted with a variable taken from the request |\n", 400)
	for name, text := range map[string]string{
		"log line, clean":      logLine,
		"comment 40KB, clean":  comment,
		"log line, with token": strings.Replace(logLine, "Handled a debate trigger.", testGitHubToken, 1),
		"comment 40KB, token":  comment + testAWSKey,
	} {
		b.Run(name, func(b *testing.B) {
			_ = Redact(text) // the detector is built once, outside the measurement
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = Redact(text)
			}
		})
	}
}

// The redactor's prefilter never skips text in which gitleaks would find something.
func FuzzRedactPrefilter(f *testing.F) {
	for _, s := range []string{testAWSKey, "token: " + testGitHubToken, "plain log line", "to\u212Aen = \"" + testGitHubToken + "\"", `{"delivery":"` + testGitHubToken + `"}`} {
		f.Add(s)
	}
	d, err := secretDetector()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !mayHoldKeyword(d, s) {
			if found := d.DetectString(s); len(found) > 0 {
				t.Fatalf("the prefilter skipped %q, where gitleaks finds %s", s, found[0].RuleID)
			}
		}
	})
}

// TestPlaceholders: real-looking values are not taken for stand-ins (a pattern that matched every
// alphanumeric value threw real keys away); stand-ins are.
func TestPlaceholders(t *testing.T) {
	for _, v := range []string{"sk_live_abc123", "hunter2hunter2", "s3cr3t-k3y", "abcdef12"} {
		if isPlaceholder(v) {
			t.Errorf("isPlaceholder(%q) = true; a real-looking value", v)
		}
	}
	for _, v := range []string{"changeme", "<token>", "${API_KEY}", "xxx", "example", "your-key-here", "aaaaaa", "DB_PASSWORD", "$SECRET", "{password}", ":password", "%(password)s"} {
		if !isPlaceholder(v) {
			t.Errorf("isPlaceholder(%q) = false; a stand-in", v)
		}
	}
}
