package toulmin

import "testing"

// Two perspectives are opposed when the moderator seated them as a pair, not when both titles
// appear somewhere in the panel's sentence about several pairs.
func TestOpposedIsAPairNotTwoTitlesInASentence(t *testing.T) {
	sec := Participant{Name: "security", Title: "Security"}
	perf := Participant{Name: "performance", Title: "Performance"}
	arch := Participant{Name: "architecture", Title: "Architecture"}
	maint := Participant{Name: "maintainability", Title: "Maintainability"}
	r := &run{t: &Transcript{Panel: &Panel{
		Opposition: "Security against Performance; Architecture against Maintainability",
		Opposed:    [][2]string{{"security", "performance"}, {"architecture", "maintainability"}},
	}}}
	for _, c := range []struct {
		a, b Participant
		want bool
	}{
		{sec, perf, true}, {perf, sec, true}, {maint, arch, true},
		{sec, maint, false}, {perf, arch, false}, {sec, sec, false},
	} {
		if got := r.opposed(c.a, c.b); got != c.want {
			t.Errorf("opposed(%s, %s) = %v, want %v", c.a.Name, c.b.Name, got, c.want)
		}
	}
	if (&run{t: &Transcript{}}).opposed(sec, perf) {
		t.Error("without a moderator's panel nothing is opposed")
	}
}
