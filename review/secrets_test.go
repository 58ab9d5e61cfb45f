package review_test

import (
	"testing"

	"github.com/debatebot/debatebot/review/evidence/rules"
)

// TestLiteralValuesNotPlaceholders: real-looking values assigned to a password or API key are
// reported by the literal rules; stand-ins are not.
func TestLiteralValuesNotPlaceholders(t *testing.T) {
	runAnalyzerCases(t, map[string]analyzerCase{
		"sk_live_abc123 as apiKey": {files: map[string]string{"pay/client.go": "package pay\n\nvar apiKey = \"sk_live_abc123\"\n"},
			rule: rules.RuleSecret, want: []string{"pay/client.go:3"}},
		"hunter2hunter2 as password": {files: map[string]string{"db/conn.go": "package db\n\nconst password = \"hunter2hunter2\"\n"},
			rule: rules.RuleSecret, want: []string{"db/conn.go:3"}},
		"safe: changeme, <token>, ${API_KEY}, all-same": {files: map[string]string{"conf/defaults.go": "package conf\n\nvar password = \"changeme\"\nvar apiKey = \"<token>\"\nvar clientSecret = \"${API_KEY}\"\nvar dbPassword = \"xxxxxxxx\"\nvar appToken = \"your-token-here\"\nvar adminPwd = \"API_PASSWORD\"\n"},
			rule: rules.RuleSecret},
	})
}
