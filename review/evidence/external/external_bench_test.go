package external

import (
	"context"
	"testing"
)

// BenchmarkExternal runs each external tool over its file of testdata/external, base and head at
// once, as the review does (a tool that is not installed is skipped).
func BenchmarkExternal(b *testing.B) {
	for name, c := range externalCases {
		b.Run(name, func(b *testing.B) {
			tool := c.tool(b)
			for b.Loop() {
				res, err := Run(context.Background(), Options{
					BaseDir: "testdata/external/base", HeadDir: "testdata/external/head",
					Files: []ChangedFile{{Path: c.file}}, Tools: []Tool{tool},
				})
				if err != nil || len(res) != 1 || res[0].Failed != "" || len(res[0].New) == 0 {
					b.Fatalf("results %+v, err %v", res, err)
				}
			}
		})
	}
}
