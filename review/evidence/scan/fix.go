package scan

import (
	"github.com/debatebot/debatebot/review/change"
	"github.com/rs/zerolog/log"
)

// keepFix is the fix f carries once checked against the head, or none: the analyzer's edit (or
// the rule's fixed line, see lineFix) must replace lines of the head that lie inside one hunk
// of the diff, read exactly as the head has them, include the finding's line (an edit a few
// lines away is widened to it), and change something. A fix that fails is dropped, not posted, with a debug log saying why; the finding
// stays.
func (s *Scan) keepFix(f Finding) change.LineFix {
	x := f.Fix
	if cf := s.Change.File(f.Path); x.IsZero() && f.Replacement != "" && cf != nil {
		if text, ok := cf.Line(f.Line); ok {
			x = change.LineFix{From: f.Line, To: f.Line, Old: text + "\n", New: f.Replacement + "\n"}
		}
	}
	if x.IsZero() {
		return x
	}
	x, err := s.widen(f, x)
	if err == nil {
		err = checkFix(s.Change, f, x)
	}
	if err == nil {
		return x
	}
	log.Debug().Err(err).Str("rule", f.Rule).Str("source", f.Source).Str("path", f.Path).Int("line", f.Line).
		Int("from", x.From).Int("to", x.To).Msg("suggested fix dropped: it does not apply to the head")
	return change.LineFix{}
}

func checkFix(c *change.Change, f Finding, x change.LineFix) error {
	cf := c.File(f.Path)
	if cf == nil {
		return errNotInChange
	}
	if f.Line < x.From || f.Line > x.To {
		return errOffLine
	}
	return cf.CheckFix(x)
}

// widen extends x to the finding's line when the edit is a few lines away (see change.Widen).
func (s *Scan) widen(f Finding, x change.LineFix) (change.LineFix, error) {
	cf := s.Change.File(f.Path)
	if cf == nil {
		return x, errNotInChange
	}
	return cf.Widen(x, f.Line)
}

type fixError string

func (e fixError) Error() string { return string(e) }

const (
	errNotInChange fixError = "the file is not in the change"
	errOffLine     fixError = "the edit does not cover the finding's line"
)
