package githubtest

import (
	"encoding/json"
	"os"
	"testing"
)

// Payload reads the webhook payload at path (a real one, from handlers/testdata/webhooks) and
// points its repository at acme/shop, the repository tests seed on the fake.
func Payload(t testing.TB, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	repo := p["repository"].(map[string]any)
	repo["name"], repo["full_name"] = "shop", "acme/shop"
	repo["owner"].(map[string]any)["login"] = "acme"
	return p
}
