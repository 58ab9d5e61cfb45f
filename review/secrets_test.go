package review

import "testing"

// TestLiteralValuesNotPlaceholders: real-looking values assigned to a password or API key are
// reported by the literal rules; stand-ins are not.
func TestLiteralValuesNotPlaceholders(t *testing.T) {
	runAnalyzerCases(t, map[string]analyzerCase{
		"sk_live_abc123 as apiKey": {files: map[string]string{"pay/client.go": "package pay\n\nvar apiKey = \"sk_live_abc123\"\n"},
			rule: RuleSecret, want: []string{"pay/client.go:3"}},
		"hunter2hunter2 as password": {files: map[string]string{"db/conn.go": "package db\n\nconst password = \"hunter2hunter2\"\n"},
			rule: RuleSecret, want: []string{"db/conn.go:3"}},
		"safe: changeme, <token>, ${API_KEY}, all-same": {files: map[string]string{"conf/defaults.go": "package conf\n\nvar password = \"changeme\"\nvar apiKey = \"<token>\"\nvar clientSecret = \"${API_KEY}\"\nvar dbPassword = \"xxxxxxxx\"\nvar appToken = \"your-token-here\"\nvar adminPwd = \"API_PASSWORD\"\n"},
			rule: RuleSecret},
	})
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
