package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDebateKeyByUse: `debate --diff` on a change that signs JWTs with a literal key that its
// name does not betray (issue 9, credentials by use) holds the change back, the required change
// citing the SignedString line, and never prints the key.
func TestDebateKeyByUse(t *testing.T) {
	diff := `diff --git a/auth/token.go b/auth/token.go
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/auth/token.go
@@ -0,0 +1,12 @@
+package auth
+
+import (
+	"crypto/hmac"
+	"crypto/sha256"
+)
+
+const k = "s3cr3t"
+
+func Sign(msg []byte) []byte {
+	return hmac.New(sha256.New, []byte(k)).Sum(msg)
+}
`
	path := filepath.Join(t.TempDir(), "key.diff")
	if err := os.WriteFile(path, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, "", nil, "debate", "--diff", path, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rec struct {
		Decision struct {
			Decision        string   `json:"decision"`
			RequiredChanges []string `json:"required_changes"`
		} `json:"decision"`
	}
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if rec.Decision.Decision != "request_changes" {
		t.Errorf("decision %s, want request_changes", rec.Decision.Decision)
	}
	if len(rec.Decision.RequiredChanges) == 0 || !strings.HasPrefix(rec.Decision.RequiredChanges[0], "auth/token.go:11:") {
		t.Errorf("required changes %v; want the first to cite auth/token.go:11 (hmac.New)", rec.Decision.RequiredChanges)
	}
	code, md, errOut := runCmd(t, "", nil, "debate", "--diff", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(md, "hardcoded-key-by-use") && !strings.Contains(md, "Literal used as a key") {
		t.Errorf("the transcript does not name the finding:\n%s", md)
	}
	if strings.Contains(out+md, "s3cr3t") {
		t.Errorf("the key is printed:\n%s", md)
	}
}
