package evidence

import (
	"fmt"
	"go/token"
	"os"

	"github.com/debatebot/debatebot/review/change"
	"golang.org/x/tools/go/analysis"
)

// suggestedFix is the one of diag's SuggestedFixes on the fewest lines that edits only the file
// the diagnostic is in, as the whole lines of that file it replaces (read from the tree at file, which must be the
// file the package was type-checked from); none when the analyzer proposes no edit or no fix
// converts. Whether it applies to the change's head is checked where the finding is recorded.
func suggestedFix(fset *token.FileSet, diag analysis.Diagnostic, file string) change.LineFix {
	if len(diag.SuggestedFixes) == 0 {
		return change.LineFix{}
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return change.LineFix{}
	}
	var best change.LineFix
	for _, sf := range diag.SuggestedFixes {
		edits, err := byteEdits(fset, sf.TextEdits, file, len(content))
		if err != nil {
			continue
		}
		if x, err := change.EditLines(content, 1, edits); err == nil && (best.IsZero() || x.To-x.From < best.To-best.From) {
			best = x // of alternative fixes, the one on the fewest lines
		}
	}
	return best
}

// byteEdits are a fix's text edits as byte offsets in file, whose size is size; they fail when
// an edit is in another file, or the file the positions name is not the one on disk.
func byteEdits(fset *token.FileSet, tes []analysis.TextEdit, file string, size int) ([]change.Edit, error) {
	if len(tes) == 0 {
		return nil, fmt.Errorf("no text edit")
	}
	edits := make([]change.Edit, 0, len(tes))
	for _, te := range tes {
		tf := fset.File(te.Pos)
		if tf == nil || tf.Name() != file || tf.Size() != size {
			return nil, fmt.Errorf("the edit is not in %s as it is on disk", file)
		}
		end := te.End
		if !end.IsValid() {
			end = te.Pos // an insertion
		}
		if end < te.Pos || int(end) > tf.Base()+tf.Size() {
			return nil, fmt.Errorf("the edit's end is outside %s", file)
		}
		edits = append(edits, change.Edit{Start: tf.Offset(te.Pos), End: tf.Offset(end), New: string(te.NewText)})
	}
	return edits, nil
}
