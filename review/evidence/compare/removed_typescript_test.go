package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/change/changetest"
)

func readTS(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "typescript", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A guard removed from a TypeScript method is reported at the TypeScript line of the work it
// let through, though types, an interface, an enum, generics and parameter properties before
// it move every line of the JavaScript that is read; the change that keeps the guard is not.
func TestTypeScriptGuardRemoved(t *testing.T) {
	base := readTS(t, "base.ts")
	got, notes := removedFindings(t, changetest.Versions(t, [3]string{"src/store.ts", base, readTS(t, "head.ts")}))
	// head.ts:35 is the read the guard stood before (base.ts:38).
	if want := "protection-removed@src/store.ts:35"; strings.Join(got, " ") != want {
		t.Errorf("guard removed: findings %v, want %s (notes %q)", got, want, notes)
	}
	if got, _ := removedFindings(t, changetest.Versions(t, [3]string{"src/store.ts", base, readTS(t, "kept.ts")})); len(got) > 0 {
		t.Errorf("guard kept: findings %v, want none", got)
	}
}

// The same change in a .tsx file, with JSX in it, is read as well.
func TestTypeScriptJSXGuardRemoved(t *testing.T) {
	base := strings.Replace(readTS(t, "base.ts"), "enum Mode", "export const badge = (n: string) => <b className=\"store\">{n}</b>;\n\nenum Mode", 1)
	head := strings.Replace(readTS(t, "head.ts"), "enum Mode", "export const badge = (n: string) => <b className=\"store\">{n}</b>;\n\nenum Mode", 1)
	got, _ := removedFindings(t, changetest.Versions(t, [3]string{"src/store.tsx", base, head}))
	if want := "protection-removed@src/store.tsx:37"; strings.Join(got, " ") != want {
		t.Errorf("findings %v, want %s", got, want)
	}
}

// A file esbuild refuses is left out with a note naming it, never guessed at.
func TestTypeScriptUnparsedNoted(t *testing.T) {
	base := readTS(t, "base.ts")
	broken := strings.Replace(readTS(t, "head.ts"), "const text = readFileSync", "const text: = readFileSync(", 1)
	got, notes := removedFindings(t, changetest.Versions(t, [3]string{"src/store.ts", base, broken}))
	if len(got) > 0 {
		t.Errorf("broken head: findings %v, want none", got)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "could not parse src/store.ts") {
		t.Errorf("no note of the unparsed file in %q", notes)
	}
}

// Every line tsIR reports is a line of the TypeScript file: the method and its statements sit
// where the source has them.
func TestTypeScriptLinesMapped(t *testing.T) {
	ir := tsIR("store.ts", []byte(readTS(t, "base.ts")))
	if ir.Err != "" || ir.Skip != "" {
		t.Fatalf("err %q skip %q", ir.Err, ir.Skip)
	}
	var load *irFunc
	for _, fn := range ir.Funcs {
		if strings.HasSuffix(fn.Name, "load") {
			load = fn
		}
	}
	if load == nil {
		t.Fatalf("no load among %d functions", len(ir.Funcs))
	}
	if load.Line != 30 || load.End != 43 {
		t.Errorf("load at %d-%d, want 30-43", load.Line, load.End)
	}
	var lines []int
	for _, n := range load.Nodes {
		lines = append(lines, n.Line)
	}
	if want := []int{34, 35, 36, 38, 39, 40, 41, 42}; !slices.Equal(lines, want) {
		t.Errorf("statement lines %v, want %v", lines, want)
	}
	if got := ir.Imports["readFileSync"]; got != "fs.readFileSync" {
		t.Errorf("import of readFileSync = %q, want fs.readFileSync", got)
	}
}

// Module syntax becomes script syntax on the same lines: imports become the requires they
// stand for, so the names they bind are known; exports drop away around their declarations.
func TestTypeScriptModuleSyntax(t *testing.T) {
	src := `import open, { join as pathJoin, sep } from "./paths";
import * as cp from "child_process";
import {
  spawn,
  exec as run,
} from "node:child_process";
import "./polyfill";
export { open };
export * from "./more";
export default function main(dir: string): void {
  cp.execFileSync(pathJoin(dir, "x"));
  const meta = import.meta.url;
  void import("./lazy");
  spawn(run, sep);
}
export const two = 2;
`
	ir := tsIR("main.ts", []byte(src))
	if ir.Err != "" || len(ir.Funcs) != 1 {
		t.Fatalf("err %q, %d functions", ir.Err, len(ir.Funcs))
	}
	// (esbuild drops an import no value uses, as TypeScript does.)
	want := map[string]string{"open": "./paths", "pathJoin": "./paths.join", "sep": "./paths.sep", "cp": "child_process", "spawn": "node:child_process.spawn", "run": "node:child_process.exec"}
	for k, v := range want {
		if ir.Imports[k] != v {
			t.Errorf("import %s = %q, want %q", k, ir.Imports[k], v)
		}
	}
	fn := ir.Funcs[0]
	if fn.Name != "main" || fn.Line != 10 || fn.End != 15 {
		t.Errorf("function %s at %d-%d, want main at 10-15", fn.Name, fn.Line, fn.End)
	}
	var lines []int
	for _, n := range fn.Nodes {
		lines = append(lines, n.Line)
	}
	if !slices.Equal(lines, []int{11, 12, 13, 14}) {
		t.Errorf("statement lines %v, want [11 12 13 14]", lines)
	}
}

// A file esbuild reads but goja does not is named with the TypeScript line of the error.
func TestTypeScriptParseErrorLine(t *testing.T) {
	src := "interface A {\n  x: number;\n}\n\nconst n: number = 1;\nclass Set {\n  set = {};\n}\n"
	ir := tsIR("bad.ts", []byte(src))
	if !strings.Contains(ir.Err, "Line 7") {
		t.Errorf("error %q does not name line 7", ir.Err)
	}
}

// moduleJS is an ES module (import and export statements, which the JavaScript parser does not
// read as a script) whose load reads a file only after refusing a name that climbs out of root.
const moduleJS = `import { readFileSync } from "node:fs";
import path from "node:path";

export const root = "/srv/data";

export function load(name) {
  if (name.includes("..")) {
    throw new Error("bad name: " + name);
  }
  const full = path.join(root, name);
  return readFileSync(full, "utf8");
}

export default { load };
`

// An ES module's JavaScript is read through esbuild as TypeScript is: a guard removed from it is
// reported at the module's own line, and the module that keeps the guard gives nothing.
func TestJavaScriptModuleGuardRemoved(t *testing.T) {
	if ir := jsIR("src/load.js", []byte(moduleJS)); ir.Err == "" {
		t.Fatalf("the script parser read the module (the test needs one it refuses)")
	}
	head := strings.Replace(moduleJS, "  if (name.includes(\"..\")) {\n    throw new Error(\"bad name: \" + name);\n  }\n", "", 1)
	got, notes := removedFindings(t, changetest.Versions(t, [3]string{"src/load.js", moduleJS, head}))
	// head's line 7 is the join the guard stood before (base's line 10).
	if len(got) == 0 || !strings.HasSuffix(got[0], "@src/load.js:7") {
		t.Errorf("guard removed: findings %v, want one at src/load.js:7 (notes %q)", got, notes)
	}
	kept := strings.Replace(moduleJS, "utf8", "latin1", 1)
	if got, _ := removedFindings(t, changetest.Versions(t, [3]string{"src/load.js", moduleJS, kept})); len(got) > 0 {
		t.Errorf("guard kept: findings %v, want none", got)
	}
}
