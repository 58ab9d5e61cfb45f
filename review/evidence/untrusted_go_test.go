package evidence

import (
	"context"
	"testing"
)

func TestExploreUntrusted(t *testing.T) {
	for _, head := range []string{"go199", "cgo", "replace", "blind"} {
		res, err := Run(context.Background(), Options{BaseDir: "testdata/untrusted/base", HeadDir: "testdata/untrusted/" + head, Files: []string{"api/user.go"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", head, typedGoNote(res))
		for _, f := range res.New {
			t.Logf("  %s %s:%d %s", f.Rule, f.Path, f.Line, f.Message)
		}
	}
}
