package compare

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
	"github.com/debatebot/debatebot/review/evidence/rules"
)

// A change that pushes a file beyond the comparison's limits (here JavaScript nested deeper
// than the parser may go) while removing a guard in it is not silent: the file is reported as
// taken out of the review, at the first line the change wrote; a new file beyond the limits, with
// no base to compare, is only named in the notes.
func TestFileTakenOutOfTheComparisonIsAFinding(t *testing.T) {
	base := "function remove(user, id) {\n  if (!user.isAdmin) {\n    throw new Error('forbidden');\n  }\n  db.remove(id);\n}\n"
	deep := strings.Repeat("[", jsMaxNesting+5) + strings.Repeat("]", jsMaxNesting+5)
	head := "function remove(user, id) {\n  db.remove(id);\n}\nconst pad = " + deep + ";\n"
	got, notes := removedFindings(t, changetest.Versions(t, [3]string{"web/admin.js", base, head}))
	if strings.Join(got, " ") != rules.RuleAnalysisBlinded+"@web/admin.js:4" {
		t.Errorf("findings %v, want the file reported as taken out of the comparison at line 4", got)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "web/admin.js: not compared: nesting deeper than") {
		t.Errorf("the notes do not name the file: %q", notes)
	}

	got, notes = removedFindings(t, changetest.Versions(t, [3]string{"web/new.js", "", "const pad = " + deep + ";\n"}))
	if len(got) != 0 {
		t.Errorf("a new file beyond the limits: findings %v, want none", got)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "web/new.js: not compared") {
		t.Errorf("the notes do not name the new file: %q", notes)
	}
}
