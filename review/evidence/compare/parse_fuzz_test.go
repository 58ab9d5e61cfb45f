package compare

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzJSIR feeds arbitrary files to the JavaScript front end: the depth check and, under its
// limits, goja's parser and the walk. Nothing may panic out of it or overflow the stack.
func FuzzJSIR(f *testing.F) {
	for _, s := range []string{
		"function f(a) { if (!a) { throw new Error('no') } return a.b(`x${a}y`, /[/]x/g) }",
		"x = " + strings.Repeat("[", 2000) + strings.Repeat("]", 2000),
		"module.exports = { g: (x) => x ? y : z, h() { for (const k of o) {} } }",
		"a: b: while (1) { if (x) break a; else continue b }",
		"if (x) /re/.test(y)\nelse if (z) w()",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ir := jsIR("a.js", src)
		if ir == nil || ir.Path != "a.js" {
			t.Fatalf("jsIR returned %+v", ir)
		}
		if ir.Skip != "" && len(ir.Funcs) > 0 {
			t.Fatalf("a file not compared has functions: %+v", ir)
		}
	})
}

// FuzzPyRead feeds arbitrary output of the Python parser process to the Go side that reads it:
// what it returns must be whole (each form stored, with its functions tied to their file) and
// it may never panic.
func FuzzPyRead(f *testing.F) {
	f.Add([]byte("{\"ready\": true}\n{\"path\": \"a.py\", \"imports\": {}, \"funcs\": [{\"name\": \"f\", \"nodes\": [{\"kind\": \"if\", \"parent\": -1, \"calls\": [{\"outer\": -1}]}]}]}\n{\"path\": \"b.py\", \"skip\": \"MemoryError\"}\n"))
	f.Add([]byte("{\"ready\": true}\n{\"path\": \"a.py\", \"funcs\": [null, {\"nodes\": [null]}]}\n"))
	f.Add([]byte("{\"ready\": true}\n{\"path\": \"a.py\", \"funcs\": [{\"nodes\": [{\"parent\": 5}]}]}\n"))
	f.Add([]byte("Traceback (most recent call last):\n"))
	files := []pySource{{Path: "a.py"}, {Path: "b.py"}}
	f.Fuzz(func(t *testing.T, out []byte) {
		irs := make([]*irFile, len(files))
		n, err := pyRead(bytes.NewReader(out), files, irs, func() {})
		if n < 0 || n > len(files) || n < len(files) && err == nil {
			t.Fatalf("pyRead read %d of %d files, err %v", n, len(files), err)
		}
		for i, ir := range irs[:n] {
			if ir == nil || ir.Path != files[i].Path || ir.Imports == nil {
				t.Fatalf("form %d: %+v", i, ir)
			}
			for _, fn := range ir.Funcs {
				if fn == nil || fn.file != ir {
					t.Fatalf("form %d: function not tied to its file: %+v", i, fn)
				}
				if err := checkFunc(fn); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
