package compare

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

// overlapBase checks whether two lists of ranges overlap; each list is first checked to be
// well formed (validRanges has a loop: costly), once per list and outside the inner iterations.
const overlapBase = `function validRanges(list) {
  for (const r of list) {
    if (r.lo > r.hi) return false;
  }
  return true;
}

function overlaps(left, right) {
  return left.some(function (a) {
    return validRanges(a) && right.some(function (b) {
      return validRanges(b) && a.every(function (x) {
        return b.every((y) => x.lo <= y.hi && y.lo <= x.hi);
      });
    });
  });
}

module.exports = { overlaps };
`

// A callback passed to an array's iteration method (some, every, map, forEach...) runs once per
// element, as a loop body does: a check base made once per element of b and head makes for every
// pair of elements, with inputs the inner iteration does not change, is work moved into a loop.
// Moving the call where its input varies, or keeping its depth, is not.
func TestWorkMovedIntoIterationCallback(t *testing.T) {
	moved := strings.Replace(overlapBase, `      return validRanges(b) && a.every(function (x) {
        return b.every(`, `      return a.every(function (x) {
        return validRanges(b) && b.every(`, 1)
	got, _ := removedFindings(t, changetest.Versions(t, [3]string{"lib/overlap.js", overlapBase, moved}))
	if want := "work-moved-into-loop@lib/overlap.js:12"; strings.Join(got, " ") != want {
		t.Errorf("findings %v, want %s", got, want)
	}

	benign := map[string]string{
		// the check now takes the inner element: its input varies with the inner iteration
		"input varies": strings.Replace(overlapBase, `      return validRanges(b) && a.every(function (x) {
        return b.every(`, `      return validRanges(b) && a.every(function (x) {
        return validRanges([x]) && b.every(`, 1),
		// the same depth, the callback rewritten as an arrow function
		"same depth": strings.Replace(overlapBase, `right.some(function (b) {`, `right.some((b) => {`, 1),
	}
	for name, head := range benign {
		if got, _ := removedFindings(t, changetest.Versions(t, [3]string{"lib/overlap.js", overlapBase, head})); len(got) > 0 {
			t.Errorf("%s: findings %v, want none", name, got)
		}
	}
}
