package codectx

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// spans prints scopes as "label start-end", sorted.
func spans(scopes []Scope) string {
	var out []string
	for _, s := range scopes {
		out = append(out, fmt.Sprintf("%s %d-%d", s.Label, s.Start, s.End))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// cartScopes are the definitions of testdata/cart.py.txt as Python's ast reads them:
// decorators included, a method inside its class, a function inside a method.
const cartScopes = `async def total 44-47
class Cart 17-47
def __init__ 20-22
def add 35-42
def check 28-33
def line 45-46
def logging_wrapper 50-51
def price 11-14
def size 24-26`

func pythonOf(t *testing.T, bin string) map[string]parsed {
	t.Helper()
	old := python3
	python3 = bin
	t.Cleanup(func() { python3 = old })
	src := map[string][]byte{"shop/cart.py": []byte(testdata(t, "cart.py.txt"))}
	return pythonScopes(context.Background(), []string{"shop/cart.py"}, src)
}

func TestPythonScopesThroughPythonAst(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed; install it (Debian: apt-get install python3) to test the ast path")
	}
	checkCartScopes(t, "python3")
}

// Without python3, the indentation scanner finds the same definitions: strings that hold
// "def", brackets and backslashes that continue a line at column 0 do not fool it.
func TestPythonScopesWithoutPython(t *testing.T) {
	checkCartScopes(t, "/nonexistent/python3")
}

// checkCartScopes reads shop/cart.py with the python3 at bin (python3's ast, or the indentation
// scanner when it does not exist) and checks its definitions and what add calls.
func checkCartScopes(t *testing.T, bin string) {
	t.Helper()
	r := pythonOf(t, bin)["shop/cart.py"]
	if r.err != "" {
		t.Fatal(r.err)
	}
	if got := spans(r.scopes); got != cartScopes {
		t.Errorf("%s's scopes:\n%s\nwant:\n%s", bin, got, cartScopes)
	}
	for _, s := range r.scopes {
		if s.Name == "add" && strings.Join(s.Calls, ",") != "check,range,append,info,total" {
			t.Errorf("add calls %q", s.Calls)
		}
	}
}

// A changed method's context is the method, whole; what it calls in the module and what calls it
// follow.
func TestPythonEnclosingMethod(t *testing.T) {
	for _, bin := range []string{"python3", "/nonexistent/python3"} {
		t.Run(bin, func(t *testing.T) {
			if _, err := exec.LookPath(bin); err != nil && bin == "python3" {
				t.Skip("python3 is not installed; install it (Debian: apt-get install python3) to test the ast path")
			}
			old := python3
			python3 = bin
			defer func() { python3 = old }()
			head := testdata(t, "cart.py.txt")
			base := strings.Replace(head, "self.items.append(item)", "self.items.insert(0, item)", 1)
			c := narrowed(t, [3]string{"shop/cart.py", base, head})
			code, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(headers(code.Text), ",")
			if want := "def add,def check,async def total"; got != want {
				t.Errorf("shown %q, want %q:\n%s", got, want, code.Text)
			}
			if !strings.Contains(code.Text, "   40| item)\n   41| \n   42|         return self.total()\n") {
				t.Errorf("add is not whole, with its lines numbered:\n%s", code.Text)
			}
		})
	}
}

func TestTypeScriptAndJavaScriptScopes(t *testing.T) {
	ts, err := jsScopes("ui/widget.ts", []byte(testdata(t, "widget.ts.txt")))
	if err != nil {
		t.Fatal(err)
	}
	want := `class Widget 8-23
function label 31-32
function makeWidget 25-29
method Widget.add 13-18
method Widget.constructor 11-11
method Widget.draw 20-22`
	if got := spans(ts); got != want {
		t.Errorf("TypeScript scopes:\n%s\nwant:\n%s", got, want)
	}
	js, err := jsScopes("lib/util.js", []byte(testdata(t, "util.js.txt")))
	if err != nil {
		t.Fatal(err)
	}
	want = `callback (app.post("/orders", (req, res) => {) 24-27
class Loader 12-16
function handler 20-22
function parse 8-10
function readConfig 3-6
method Loader.load 13-15`
	if got := spans(js); got != want {
		t.Errorf("JavaScript scopes:\n%s\nwant:\n%s", got, want)
	}
}

// A change inside a route's callback shows the callback whole, then the function it calls.
func TestJavaScriptCallbackEnclosesTheChange(t *testing.T) {
	head := testdata(t, "util.js.txt")
	base := strings.Replace(head, "res.json(cfg);", "res.send(cfg);", 1)
	c := narrowed(t, [3]string{"lib/util.js", base, head})
	code, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(headers(code.Text), ",")
	if want := `callback (app.post("/orders", (req, res) => {),function readConfig`; got != want {
		t.Errorf("shown %q, want %q:\n%s", got, want, code.Text)
	}
	if !strings.Contains(code.Text, "function readConfig: called by callback (app.post(\"/orders\", (req, res) => {)\n") {
		t.Errorf("the callee does not say which callback calls it:\n%s", code.Text)
	}
}

func TestTypeScriptEnclosingMethodAndCallers(t *testing.T) {
	head := testdata(t, "widget.ts.txt")
	base := strings.Replace(head, `throw new Error("full");`, `return;`, 1)
	c := narrowed(t, [3]string{"ui/widget.ts", base, head})
	code, err := Build(context.Background(), c, nil, nil, 4000, tokenizer(t))
	if err != nil {
		t.Fatal(err)
	}
	got := headers(code.Text)
	if len(got) < 2 || got[0] != "method Widget.add" || got[1] != "function makeWidget" {
		t.Errorf("shown %q, want the changed method, then its caller:\n%s", got, code.Text)
	}
	if !strings.Contains(code.Text, "   13|   add(item: T): void {\n") || !strings.Contains(code.Text, "   28|   return w;\n") {
		t.Errorf("the TypeScript lines are not the file's own, numbered:\n%s", code.Text)
	}
}
