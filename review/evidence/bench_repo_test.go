package evidence

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Sizes of the generated repository of BenchmarkRunLargeRepository: about 100,000 lines of Go in
// 40 packages, of which the change edits 60 files in 12 packages.
const (
	bigPackages     = 40
	bigFilesPerPkg  = 5
	bigFuncsPerFile = 18
	bigChangedPkgs  = 12
)

// writeBigRepo writes a module of ordinary service code (handlers, queries, a cache guarded by a
// mutex, workers with contexts) into dir: each package imports the one before it, so loading a
// changed package needs its dependencies' export data. With changed set, the first
// bigChangedPkgs packages' files carry the change: a new function per file, and an edited line.
func writeBigRepo(tb testing.TB, dir, module string, changed bool) int {
	tb.Helper()
	lines := 0
	put := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
		lines += strings.Count(text, "\n")
	}
	put(filepath.Join(dir, "go.mod"), "module "+module+"\n\ngo 1.22\n")
	for p := 0; p < bigPackages; p++ {
		for f := 0; f < bigFilesPerPkg; f++ {
			var b strings.Builder
			fmt.Fprintf(&b, "package p%d\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"net/http\"\n\t\"strings\"\n\t\"time\"\n", p)
			if f == 0 {
				b.WriteString("\t\"sync\"\n")
			}
			if p > 0 && f == 0 {
				fmt.Fprintf(&b, "\n\tprev %q\n", fmt.Sprintf("%s/p%d", module, p-1))
			}
			b.WriteString(")\n\n")
			if f == 0 {
				b.WriteString("// Cache keeps rows by key.\ntype Cache struct {\n\tmu   sync.Mutex\n\trows map[string]int\n}\n\n// Get returns the row of key.\nfunc (c *Cache) Get(key string) (int, bool) {\n\tc.mu.Lock()\n\tdefer c.mu.Unlock()\n\tv, ok := c.rows[key]\n\treturn v, ok\n}\n\n")
				if p > 0 {
					b.WriteString("// Link keeps the previous package in use.\nvar Link = prev.Version\n\n")
				}
				fmt.Fprintf(&b, "// Version names the package.\nfunc Version() string { return %q }\n\n", fmt.Sprintf("p%d", p))
			}
			for n := 0; n < bigFuncsPerFile; n++ {
				id := fmt.Sprintf("F%d_%d", f, n)
				edit := changed && p < bigChangedPkgs && n == 3
				limit := "100"
				if edit {
					limit = "200"
				}
				fmt.Fprintf(&b, `// Handle%[1]s serves one endpoint.
func Handle%[1]s(db *sql.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		name := strings.TrimSpace(r.URL.Query().Get("name"))
		rows, err := db.QueryContext(ctx, "SELECT id, total FROM orders WHERE name = $1 LIMIT %[2]s", name)
		if err != nil {
			http.Error(w, "query failed", http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		var out []map[string]int
		for rows.Next() {
			var id, total int
			if err := rows.Scan(&id, &total); err != nil {
				http.Error(w, fmt.Sprintf("scan: %%v", err), http.StatusInternalServerError)
				return
			}
			out = append(out, map[string]int{"id": id, "total": total})
		}
		if err := json.NewEncoder(w).Encode(out); err != nil {
			return
		}
	}
}

`, id, limit)
			}
			if changed && p < bigChangedPkgs {
				fmt.Fprintf(&b, "// Fetch%d reads a page.\nfunc Fetch%d(ctx context.Context, url string) (*http.Response, error) {\n\treq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn http.DefaultClient.Do(req)\n}\n", f, f)
			}
			put(filepath.Join(dir, fmt.Sprintf("p%d", p), fmt.Sprintf("f%d.go", f)), b.String())
		}
	}
	return lines
}

// BenchmarkRunLargeRepository runs the analysis of a change of 60 files over both trees of a
// repository of about 100,000 lines of Go (the target: under 30 s and 1.5 GB). Each
// iteration writes the repository under a module path of its own, so that the go command's build
// cache holds the standard library (as on a server that analysed before) but none of the
// repository's packages. It reports the peak Go heap sampled during the run and the process's
// peak resident size (the go command's processes, which compile the dependencies' export data,
// run beside it and are not counted).
func BenchmarkRunLargeRepository(b *testing.B) {
	var files []string
	for p := 0; p < bigChangedPkgs; p++ {
		for f := 0; f < bigFilesPerPkg; f++ {
			files = append(files, fmt.Sprintf("p%d/f%d.go", p, f))
		}
	}
	var peakHeap atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peakHeap.Load() {
					peakHeap.Store(ms.HeapInuse)
				}
			}
		}
	}()
	lines, iter := 0, 0
	for b.Loop() {
		b.StopTimer()
		iter++
		root := b.TempDir()
		module := fmt.Sprintf("example.com/big%d%d", time.Now().UnixNano(), iter)
		lines = writeBigRepo(b, filepath.Join(root, "base"), module, false)
		writeBigRepo(b, filepath.Join(root, "head"), module, true)
		b.StartTimer()
		res, err := Run(context.Background(), Options{BaseDir: filepath.Join(root, "base"), HeadDir: filepath.Join(root, "head"), Files: files})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Packages) != bigChangedPkgs || len(res.Degraded) > 0 {
			b.Fatalf("analysed %d packages (want %d), degraded %+v", len(res.Packages), bigChangedPkgs, res.Degraded)
		}
	}
	close(stop)
	wg.Wait()
	var self syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	b.ReportMetric(float64(lines), "lines")
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(float64(peakHeap.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(self.Maxrss)/1024, "peak-rss-MB")
}
