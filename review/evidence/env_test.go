package evidence

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

func TestEnvLeavesOutTheAppsSecrets(t *testing.T) {
	t.Setenv("GITHUB_APP_PRIVATE_KEY", "-----BEGIN RSA PRIVATE KEY-----")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("DEBATEBOT_DATABASE_URL", "postgres://u:p@h/db")
	t.Setenv("HOME", "/home/debatebot")
	env := Env()
	for _, kv := range env {
		if strings.HasPrefix(kv, "GITHUB_") || strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "DEBATEBOT_") {
			t.Errorf("the analysis environment holds %s", kv)
		}
	}
	for _, want := range []string{"HOME=/home/debatebot", "CGO_ENABLED=0", "GOPROXY=off", "GOTOOLCHAIN=local"} {
		if !slices.Contains(env, want) {
			t.Errorf("the analysis environment lacks %s", want)
		}
	}
}

// TestDownloadsReachOnlyTheProxy: the host's settings that would bypass the proxy or its
// checks (private patterns, insecure hosts, a direct fallback, a go env file) never reach the go
// command, and downloads run no version control tool.
func TestDownloadsReachOnlyTheProxy(t *testing.T) {
	for _, kv := range [][2]string{{"GOPRIVATE", "*"}, {"GONOPROXY", "*"}, {"GONOSUMDB", "*"}, {"GOINSECURE", "*"}, {"GOFLAGS", "-insecure"}, {"GOVCS", "*:git"}, {"GOENV", "/tmp/evil-go-env"}} {
		t.Setenv(kv[0], kv[1])
	}
	t.Setenv("DEBATEBOT_GOPROXY", "https://proxy.example,direct")
	m := ModuleSettingsFromEnv(os.Getenv)
	env := resolveEnv(goEnv(m), m)
	last := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		last[k] = v
	}
	want := map[string]string{"GOPROXY": "https://proxy.example", "GOSUMDB": "sum.golang.org https://proxy.example/sumdb/sum.golang.org", "GOPRIVATE": "", "GONOPROXY": "", "GONOSUMDB": "", "GOINSECURE": "", "GOFLAGS": "-mod=mod", "GOVCS": "*:off", "GOENV": "off", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}
	for k, v := range want {
		if last[k] != v {
			t.Errorf("downloads run with %s=%q, want %q", k, last[k], v)
		}
	}
}

// TestAnalysisDoesNotCompileTheTreesC loads a package whose cgo file would stop the C compiler
// (an #error in its preamble): analysis never runs the C compiler on an author's code, so the
// package's Go files are analysed and nothing is degraded by the C code.
func TestAnalysisDoesNotCompileTheTreesC(t *testing.T) {
	dir := t.TempDir()
	changetest.Write(t, dir+"/go.mod", "module example.com/cgo\n\ngo 1.22\n")
	changetest.Write(t, dir+"/p/native.go", "package p\n\n/*\n#error the C compiler ran on the tree\n*/\nimport \"C\"\n\nfunc Native() {}\n")
	changetest.Write(t, dir+"/p/p.go", "package p\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\nfunc F(ctx context.Context) context.Context {\n\tctx, _ = context.WithTimeout(ctx, time.Second)\n\treturn ctx\n}\n")
	rep, err := AnalyzeTree(context.Background(), dir, []string{"p/p.go", "p/native.go"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Degraded {
		if strings.Contains(d.Reason, "C compiler ran") {
			t.Errorf("the C compiler ran on the tree: %s: %s", d.Package, d.Reason)
		}
	}
	var lost bool
	for _, f := range rep.Findings {
		lost = lost || f.Rule == "lostcancel"
	}
	if !lost {
		t.Errorf("the Go files were not analysed: findings %+v, degraded %+v", rep.Findings, rep.Degraded)
	}
}
