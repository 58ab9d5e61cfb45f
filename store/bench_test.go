package store

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"
)

// BenchmarkAcceptAndPersist records 1,000 deliveries with their jobs, 8 at a time, on each
// backend, and reports the p50 and p99 of one Enqueue (what a webhook waits for before 2xx).
func BenchmarkAcceptAndPersist(b *testing.B) {
	for name, open := range backends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			ctx := context.Background()
			var p50, p99 time.Duration
			round := 0
			for b.Loop() {
				round++
				lat := make([]time.Duration, 1000)
				var wg sync.WaitGroup
				sem := make(chan struct{}, 8)
				for i := range lat {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer wg.Done()
						defer func() { <-sem }()
						start := time.Now()
						id := fmt.Sprintf("r%d-%d", round, i)
						if _, err := s.Enqueue(ctx, id, "pull_request", job(id, fmt.Sprintf("acme/shop#%d", i), "h")); err != nil {
							b.Error(err)
						}
						lat[i] = time.Since(start)
					}()
				}
				wg.Wait()
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				p50, p99 = lat[len(lat)/2], lat[len(lat)*99/100]
			}
			b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkClaims has 4 workers claim and complete 1,000 queued jobs and reports jobs per second.
func BenchmarkClaims(b *testing.B) {
	for name, open := range backends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			ctx := context.Background()
			var rate float64
			round := 0
			for b.Loop() {
				round++
				b.StopTimer()
				for i := 0; i < 1000; i++ {
					id := fmt.Sprintf("c%d-%d", round, i)
					if _, err := s.Enqueue(ctx, id, "pull_request", job(id, id, "h")); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				start := time.Now()
				var wg sync.WaitGroup
				for w := 0; w < 4; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						owner := fmt.Sprintf("w%d", w)
						for {
							j, err := s.Claim(ctx, owner, time.Minute)
							if err != nil {
								b.Error(err)
								return
							}
							if j == nil {
								return
							}
							if err := s.Complete(ctx, j.ID, owner); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				rate = 1000 / time.Since(start).Seconds()
			}
			b.ReportMetric(rate, "claims/s")
		})
	}
}

// BenchmarkStatsByRepository computes the metrics of 20 repositories of 500 finished debates
// each: in one query (StatsByRepository), and in one query per repository as the metrics page
// once did.
func BenchmarkStatsByRepository(b *testing.B) {
	for name, open := range backends(b) {
		b.Run(name, func(b *testing.B) {
			s := open(b)
			ctx := context.Background()
			base := time.Unix(1_700_000_000, 0)
			var repos []string
			for i := range 20 {
				repos = append(repos, fmt.Sprintf("acme/repo%02d", i))
			}
			for i := range 10000 {
				d := &Debate{ID: fmt.Sprintf("debate-%05d", i), Repository: repos[i%20], PRNumber: i, Protocol: "standard",
					Decision: []string{"approve", "escalate", "request_changes"}[i%3], Phases: 6, StartedAt: base.Add(time.Duration(i) * time.Second),
					EndedAt: base.Add(time.Duration(i)*time.Second + 5*time.Second), Prompt: 1000, Completion: 200, ConsensusLevel: "consensus"}
				if err := s.FinishDebate(ctx, d); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("one-query", func(b *testing.B) {
				for b.Loop() {
					if _, err := s.StatsByRepository(ctx, repos); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("query-per-repository", func(b *testing.B) {
				for b.Loop() {
					for _, r := range repos {
						ds, err := s.debates(ctx, "WHERE repository = ? AND decision <> ''", r)
						if err != nil {
							b.Fatal(err)
						}
						statsOf(ds)
					}
				}
			})
		})
	}
}
