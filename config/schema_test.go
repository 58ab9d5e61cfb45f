package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite .github/debatebot.schema.json")

func TestSchemaIsCurrent(t *testing.T) {
	got, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", ".github", "debatebot.schema.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is stale or missing (%v): run go test ./config -run Schema -update", path, err)
	}
	for _, key := range []string{`"command_permission"`, `"stakeholders"`, `"token_limit"`, `"additionalProperties": false`, `"pattern"`} {
		if !bytes.Contains(got, []byte(key)) {
			t.Errorf("schema lacks %s", key)
		}
	}
}

func TestExampleConfigParses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".github", "debatebot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse(data, RepoPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Stakeholders) != 6 || r.Stakeholders[4].Paths[0] != "payments/**" {
		t.Errorf("example stakeholders = %+v", r.Stakeholders)
	}
}
