package external

import (
	"strings"

	"github.com/debatebot/debatebot/review/evidence/scan"
	"github.com/debatebot/debatebot/voting"
)

// toolChain is what a tool's findings in head go through, in order, before they are the tool's
// result (runOne), as the type-checked Go analysis's go through its comparison chain
// (../processors.go): the scan's own chain (scan/chain.go) then takes them with every other
// analyzer's.
func toolChain(c *toolComparison) []scan.Processor {
	return []scan.Processor{
		catalogCap{},      // a rule of the tool's catalog is at most as serious as the catalog says
		newInHead{cmp: c}, // what the base already had is left out (compareExternal)
	}
}

// catalogCap lowers the severity of a finding of a rule of its tool's catalog to the catalog's,
// when the tool rates it more serious: the catalog caps the rules that are noisy whatever the
// tool says (md5 for an ETag, random for a jitter). A finding under the tool's catch-all rule
// keeps the tool's severity.
type catalogCap struct{}

func (catalogCap) Name() string { return "catalog severity cap" }

func (catalogCap) Process(found []scan.Finding) ([]scan.Finding, error) {
	out := make([]scan.Finding, 0, len(found))
	for _, f := range found {
		id, ok := strings.CutPrefix(f.Rule, f.Source+":")
		if r, known := externalCatalogs[f.Source][id]; ok && known {
			f.Severity = capSeverity(f.Severity, r.severity)
		}
		out = append(out, f)
	}
	return out, nil
}

// capSeverity lowers sev to limit when it is more serious.
func capSeverity(sev, limit voting.Severity) voting.Severity {
	if limit != "" && sev.Rank() > limit.Rank() {
		return limit
	}
	return sev
}

// toolComparison is what the new-in-head processor knows of a tool's run: the base's findings
// with the text of their lines (under head's paths when the file was renamed), the lines of
// head's files that hold findings, and how many head findings the base already had.
type toolComparison struct {
	base        []located
	headLines   map[string][]string
	preexisting int
}

// newInHead keeps the head findings that the base does not have (compareExternal), telling
// moved lines from new ones by their text.
type newInHead struct{ cmp *toolComparison }

func (newInHead) Name() string { return "new in head" }

func (p newInHead) Process(head []scan.Finding) ([]scan.Finding, error) {
	in := make([]located, len(head))
	for i, f := range head {
		in[i].Finding, in[i].text = f, lineText(p.cmp.headLines[f.Path], f.Line)
	}
	fresh, pre := compareExternal(p.cmp.base, in)
	p.cmp.preexisting += pre
	return fresh, nil
}
