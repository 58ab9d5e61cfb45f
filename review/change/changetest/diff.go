package changetest

import (
	"fmt"
	"strings"
)

// NewFileDiff is the git diff that adds a file with the given content.
func NewFileDiff(path, content string) string {
	content = strings.TrimPrefix(content, "\n")
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// LargeDiff builds a realistic change of about lines added lines over Go, Python and TypeScript
// files, with a few defects among ordinary code.
func LargeDiff(lines int) string {
	var b strings.Builder
	perFile := 250
	for i := 0; b.Len() == 0 || CountAdded(b.String()) < lines; i++ {
		var body strings.Builder
		switch i % 3 {
		case 0:
			fmt.Fprintf(&body, "package svc%d\n\nimport (\n\t\"database/sql\"\n\t\"fmt\"\n)\n\n", i)
			for f := 0; body.Len() < perFile*30; f++ {
				fmt.Fprintf(&body, "// Handler%d serves one endpoint.\nfunc Handler%d(db *sql.DB, ids []int) (int, error) {\n\ttotal := 0\n\tfor _, id := range ids {\n\t\tvar n int\n\t\tif err := db.QueryRow(\"SELECT n FROM t WHERE id = $1\", id).Scan(&n); err != nil {\n\t\t\treturn 0, fmt.Errorf(\"handler %d: %%w\", err)\n\t\t}\n\t\ttotal += n\n\t}\n\treturn total, nil\n}\n\n", f, f, f)
			}
		case 1:
			for f := 0; body.Len() < perFile*30; f++ {
				fmt.Fprintf(&body, "def job_%d(cur, name):\n    cur.execute(\"SELECT id FROM users WHERE name = %%s\", (name,))\n    row = cur.fetchone()\n    if row is None:\n        return None\n    return row[0]\n\n\n", f)
			}
		default:
			for f := 0; body.Len() < perFile*30; f++ {
				fmt.Fprintf(&body, "export async function load%d(ids: number[]): Promise<number[]> {\n  const res = await fetch('/api/items?ids=' + ids.join(','));\n  if (!res.ok) {\n    throw new Error(`load: ${res.status}`);\n  }\n  return res.json();\n}\n\n", f)
			}
		}
		ext := []string{"go", "py", "ts"}[i%3]
		b.WriteString(NewFileDiff(fmt.Sprintf("pkg%d/file%d.%s", i/3, i, ext), body.String()))
	}
	return b.String()
}

// CountAdded counts the added lines of a diff.
func CountAdded(diff string) int { return strings.Count(diff, "\n+") }
