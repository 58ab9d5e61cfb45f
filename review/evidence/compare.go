package evidence

import "github.com/debatebot/debatebot/review/evidence/scan"

// Compare returns the head findings that are new, and how many head findings the base already
// had. A key with more occurrences in head than in base is new; its occurrences beyond the base's
// count are reported, the last ones in head's order (the earlier ones are taken to be the base's,
// which cannot be told apart without line numbers). An occurrence whose base twin ran only under
// conditions head dropped (see pathConds) is new too: the change made it reachable on more
// paths. Findings keep their head lines.
func Compare(base, head []scan.Finding) (fresh []scan.Finding, preexisting int) {
	inBase := map[string][]scan.Finding{}
	for _, f := range base {
		inBase[f.Key()] = append(inBase[f.Key()], f)
	}
	seen := map[string]int{}
	for _, f := range head {
		k := f.Key()
		i := seen[k]
		seen[k]++
		if i >= len(inBase[k]) {
			fresh = append(fresh, f)
			continue
		}
		if dropped := droppedConds(inBase[k][i].Conds, f.Conds); len(dropped) > 0 {
			f.Message += "; the change made it reachable on more paths: the base ran it only when " + describeConds(dropped)
			f.MoreReachable = true
			fresh = append(fresh, f)
			continue
		}
		preexisting++
	}
	return fresh, preexisting
}

// checkedByCallers takes back the findings Compare made new for being reachable on more paths
// when the function's callers (in the loaded packages) all check what they pass it before the
// call: the condition moved to the callers, the paths did not grow.
func checkedByCallers(fresh []scan.Finding, preexisting int, head *treeSummary) ([]scan.Finding, int) {
	if head == nil {
		return fresh, preexisting
	}
	out := fresh[:0:0]
	for _, f := range fresh {
		if f.MoreReachable {
			if fn := head.funcAt(f.Path, f.Func); fn != nil && head.callersCheck(fn) {
				preexisting++
				continue
			}
		}
		out = append(out, f)
	}
	return out, preexisting
}
