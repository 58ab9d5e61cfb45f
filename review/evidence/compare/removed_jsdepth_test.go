package compare

import (
	"strings"
	"testing"
	"time"
)

// The depth check counts the brackets the parser will recurse into, and not those in strings,
// template text, comments or regular expression literals; where a / may be a division it counts
// what follows (the cautious side).
func TestJSDepth(t *testing.T) {
	deep := strings.Repeat("[", jsMaxNesting+1) + strings.Repeat("]", jsMaxNesting+1)
	shallow := strings.Repeat("[", jsMaxNesting) + strings.Repeat("]", jsMaxNesting)
	for _, c := range []struct {
		src, want string
	}{
		{"x = " + shallow, ""},
		{"x = " + deep, "nesting deeper than 1000"},
		{"x = '" + deep + "'", ""},
		{"x = \"" + strings.Repeat("(", 2000) + "\"", ""},
		{"// " + deep + "\nx = 1", ""},
		{"/* " + deep + " */ x = 1", ""},
		{"x = `" + deep + "`", ""},
		{"x = `${" + deep + "}`", "nesting deeper than 1000"},
		{"x = f(/" + strings.Repeat(`\[`, 1500) + "/)", ""},
		{"x = a / " + deep + " / 2", "nesting deeper than 1000"},
		{"x = " + strings.Repeat("!", jsMaxChain+1) + "1", "expressions or statements chained deeper than 4000"},
		{"function f() {" + strings.Repeat("if (a)\n", jsMaxChain) + "x() }", "expressions or statements chained deeper than 4000"},
		{strings.Repeat("a = b + c\n", 3*jsMaxChain), ""},
		{strings.Repeat("function a() {}", 3*jsMaxChain), ""},
		{"if (a) {}" + strings.Repeat(" else if (a) {}", jsMaxChain), "expressions or statements chained deeper than 4000"},
		{"function f() {" + strings.Repeat("a:", jsMaxLabels+2) + "x() }", "more than 200 statement labels"},
		{"x = {" + strings.Repeat("a: 1, ", 3*jsMaxLabels) + "}", ""},
	} {
		if got := jsDepth([]byte(c.src)); got != c.want {
			t.Errorf("jsDepth(%.40q…) = %q, want %q", c.src, got, c.want)
		}
	}
	if ir := jsIR("web/deep.js", []byte("x = "+deep)); ir.Skip != "nesting deeper than 1000" || len(ir.Funcs) != 0 {
		t.Errorf("jsIR of a file nested too deeply: %+v", ir)
	}
}

// A line of slashes that each may begin a regular expression literal, none of which ends, is
// scanned once, not once per slash: the check stays linear in the file's size.
func TestJSDepthUnendedRegexLinear(t *testing.T) {
	src := []byte("x" + strings.Repeat("=/[);", 200000))
	start := time.Now()
	if got := jsDepth(src); got != "" {
		t.Errorf("jsDepth = %q, want none", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("jsDepth took %s on a 1 MB line", d)
	}
	if got := jsDepth([]byte("x = a /[ 1\ny = f(/" + strings.Repeat(`\[`, 1500) + "/)")); got != "" {
		t.Errorf("a regular expression literal on the line after an unended one: jsDepth = %q", got)
	}
}
