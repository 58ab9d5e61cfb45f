package llm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rs/zerolog/log"

	"github.com/debatebot/debatebot/review/change"
	"github.com/debatebot/debatebot/toulmin"
)

// fix is the edit the action writes, when it writes one that applies to the head: the lines
// StartLine..Line of its path, read as Original, replaced by Replacement. The lines must lie in
// one hunk of the change and read exactly as Original says, and the replacement must differ (see
// change.File.CheckFix); a model that misquotes the head or miscounts its lines gets no
// suggestion, only its action's text. A model does not delete lines by a suggestion: an empty
// replacement is no fix.
func (act ReplyAction) fix(req *toulmin.Request) *toulmin.Fix {
	if act.StartLine == 0 && len(act.Original) == 0 && len(act.Replacement) == 0 {
		return nil
	}
	x, err := act.checkFix(req)
	if err != nil {
		log.Debug().Err(err).Str("path", act.Path).Int("start_line", act.StartLine).Int("line", act.Line).
			Msg("the model's replacement lines were dropped: they do not apply to the head")
		return nil
	}
	return &toulmin.Fix{From: x.From, To: x.To, Text: x.New}
}

func (act ReplyAction) checkFix(req *toulmin.Request) (change.LineFix, error) {
	var c *change.Change
	if req != nil && req.Subject != nil {
		c, _ = req.Subject.Data.(*change.Change)
	}
	if c == nil {
		return change.LineFix{}, errors.New("the debate has no change to apply them to")
	}
	if len(act.Replacement) == 0 {
		return change.LineFix{}, errors.New("no replacement lines")
	}
	f := c.File(strings.TrimSpace(act.Path))
	if f == nil {
		return change.LineFix{}, fmt.Errorf("%q is not a file of the change", act.Path)
	}
	from := act.StartLine
	if from == 0 {
		from = act.Line
	}
	x := change.Lines(from, act.Line, trimNewlines(act.Original), trimNewlines(act.Replacement))
	if err := f.CheckFix(x); err != nil {
		return change.LineFix{}, err
	}
	return x, nil
}

// trimNewlines drops the line endings a model may leave on its lines.
func trimNewlines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, "\r\n")
	}
	return out
}
