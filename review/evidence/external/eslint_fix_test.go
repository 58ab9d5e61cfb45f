package external

import (
	"testing"

	"github.com/debatebot/debatebot/review/change"
)

// formatter.cjs reports a message's edit as the lines it touches and its byte range in them;
// Parse makes it the whole lines replaced, at their lines in the file. An edit that does not
// fit its lines is no fix; the finding stays.
func TestESLintParseReadsFixes(t *testing.T) {
	out := &ToolOutput{ExitCode: 1, Stdout: []byte(`[{"filePath": "/t/web/list.js", "messages": [
		{"ruleId": "@typescript-eslint/no-array-delete", "severity": 2, "message": "Using the delete operator with an array expression is unsafe.", "line": 3, "column": 3,
		 "fix": {"line": 3, "lines": "  delete out[0]; // é\n", "start": 2, "end": 15, "text": "out.splice(0, 1)"}},
		{"ruleId": "no-dupe-keys", "severity": 2, "message": "Duplicate key 'a'.", "line": 5, "column": 3,
		 "fix": {"line": 5, "lines": "  a: 1,\n", "start": 4, "end": 99, "text": "2"}},
		{"ruleId": "no-self-compare", "severity": 2, "message": "Comparing to itself is potentially pointless.", "line": 7, "column": 7}]}]`)}
	found, problems, err := ESLint{}.Parse(out)
	if err != nil || len(problems) != 0 || len(found) != 3 {
		t.Fatalf("Parse = %+v, %v, %v", found, problems, err)
	}
	want := change.LineFix{From: 3, To: 3, Old: "  delete out[0]; // é\n", New: "  out.splice(0, 1); // é\n"}
	if found[0].Fix != want {
		t.Errorf("fix = %+v; want %+v", found[0].Fix, want)
	}
	if !found[1].Fix.IsZero() || !found[2].Fix.IsZero() {
		t.Errorf("an edit outside its lines, or no edit, made a fix: %+v, %+v", found[1].Fix, found[2].Fix)
	}
}
