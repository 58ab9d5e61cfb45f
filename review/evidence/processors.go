package evidence

import (
	"github.com/debatebot/debatebot/review/evidence/rules"
	"github.com/debatebot/debatebot/review/evidence/scan"
)

// Processors turn what the analyzers found into what the debate sees, as golangci-lint's
// pkg/result/processors do: each takes the findings and returns those it keeps, changed or
// merged, and the chains run them in order, top to bottom. There are three chains:
//
//   - comparisonChain, over the type-checked Go analysis's head findings (Run): what is new in
//     head.
//   - external.toolChain (external/processors.go), over each external tool's head findings when
//     its reports of base and head are read: the catalog's severity cap, then what is new in
//     head (compareExternal: by key, then by the text of the line).
//   - scan's chain (scan/chain.go), over everything the scan's analyzers reported
//     (Scan.Findings): put in a total order by the reporting analyzer's precedence, place, rule
//     and source (so that the order in which findings come in does not matter), duplicates
//     folded, process notes capped, the same defect found by several analyzers merged, then
//     ordered. The result is what Gather returns; the debate's evidence is made of it in review
//     (review.Evidence), outside these packages.
//
// To add a processor: write a type with Name and Process (or a processorFunc), give it a table
// test on Findings of your own (processors_test.go, scan/chain_test.go, external/external_test.go), and put it in its chain where it belongs
// (a processor sees what the ones above it left). A processor never reaches the network or the
// trees: what it needs to know is on the Findings.

// comparisonChain keeps the type-checked Go analysis's head findings that are new in head, in
// order: new by key (Compare), taken back when the callers check what moved to them, protections
// the change removed or weakened (superseding the findings they restate at the same line), then
// packages the change hid from the analysis.
func comparisonChain(c *treeComparison) []scan.Processor {
	return []scan.Processor{
		processorFunc{"new in head", c.newInHead},
		processorFunc{"checked by callers", c.checkedByCallers},
		processorFunc{"weakened protections", c.weakened},
		processorFunc{"blinded packages", c.blinded},
	}
}

// processorFunc is a processor made of a function.
type processorFunc struct {
	name string
	fn   func([]scan.Finding) ([]scan.Finding, error)
}

func (p processorFunc) Name() string                                         { return p.name }
func (p processorFunc) Process(found []scan.Finding) ([]scan.Finding, error) { return p.fn(found) }

// treeComparison is what the comparison chain knows of the run: both trees' reports, the run's
// options and environment, and how many head findings the base already had.
type treeComparison struct {
	opts        Options
	env         []string
	base, head  *TreeReport
	preexisting int
}

// newInHead keeps head's findings that the base does not have (Compare).
func (c *treeComparison) newInHead(head []scan.Finding) ([]scan.Finding, error) {
	fresh, pre := Compare(c.base.Findings, head)
	c.preexisting += pre
	return fresh, nil
}

// checkedByCallers takes back what Compare made new for more paths when the callers check.
func (c *treeComparison) checkedByCallers(fresh []scan.Finding) ([]scan.Finding, error) {
	out, pre := checkedByCallers(fresh, 0, c.head.summary)
	c.preexisting += pre
	return out, nil
}

// weakened adds the protections the change removed or weakened, new by construction; they
// supersede the new findings of other rules they restate at the same line.
func (c *treeComparison) weakened(fresh []scan.Finding) ([]scan.Finding, error) {
	if !c.opts.runs(rules.SourceDebatebot) {
		return fresh, nil
	}
	weak, twins := weakened(c.base.summary, c.head.summary)
	return mergeWeakened(fresh, weak, twins), nil
}

// blinded adds the packages the change hid from the analysis, new by construction too.
func (c *treeComparison) blinded(fresh []scan.Finding) ([]scan.Finding, error) {
	if !c.opts.runs(rules.SourceDebatebot) {
		return fresh, nil
	}
	return append(fresh, blinded(c.opts, c.base, c.head, c.env)...), nil
}
