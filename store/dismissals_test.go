package store

import (
	"context"
	"testing"
	"time"
)

// A dismissal is kept once per repository and fingerprint, listed newest first for the
// repositories asked, read as a set by the debates, and undone.
func TestDismissals(t *testing.T) {
	forEach(t, func(t *testing.T, open func(testing.TB) *Store) {
		s, ctx := open(t), context.Background()
		t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
		d := &Dismissal{Repository: "acme/shop", Fingerprint: "fp1-aaa", Rule: "sql-injection", Path: "a.go", Line: 30, PRNumber: 7,
			By: "alice", Reason: "the value is a constant", CommentURL: "https://github.com/acme/shop/pull/7#discussion_r9", Excerpt: "query built", At: t0}
		if ok, err := s.Dismiss(ctx, d); err != nil || !ok {
			t.Fatalf("first dismissal = %v, %v; want kept", ok, err)
		}
		again := *d
		again.By, again.At = "bob", t0.Add(time.Hour)
		if ok, err := s.Dismiss(ctx, &again); err != nil || ok {
			t.Fatalf("second dismissal of the same finding = %v, %v; want not kept again", ok, err)
		}
		other := &Dismissal{Repository: "acme/shop", Fingerprint: "fp1-bbb", Rule: "ignored-error", Path: "b.go", Line: 3, By: "carol", At: t0.Add(2 * time.Hour)}
		elsewhere := &Dismissal{Repository: "acme/other", Fingerprint: "fp1-aaa", Rule: "sql-injection", Path: "a.go", Line: 1, By: "dave", At: t0}
		for _, x := range []*Dismissal{other, elsewhere} {
			if _, err := s.Dismiss(ctx, x); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Dismiss(ctx, &Dismissal{Repository: "acme/shop"}); err == nil {
			t.Error("a dismissal without a fingerprint was kept")
		}

		list, err := s.Dismissals(ctx, []string{"acme/shop"})
		if err != nil || len(list) != 2 || list[0].Fingerprint != "fp1-bbb" || list[1].By != "alice" || list[1].Reason != "the value is a constant" || !list[1].At.Equal(t0) {
			t.Fatalf("dismissals of acme/shop = %+v, %v; want fp1-bbb then alice's fp1-aaa", list, err)
		}
		set, err := s.DismissedFingerprints(ctx, "acme/shop")
		if err != nil || len(set) != 2 || !set["fp1-aaa"] || !set["fp1-bbb"] {
			t.Fatalf("fingerprints of acme/shop = %v, %v", set, err)
		}
		repos, err := s.DismissalRepositories(ctx)
		if err != nil || len(repos) != 2 || repos[0] != "acme/other" {
			t.Fatalf("repositories = %v, %v", repos, err)
		}

		if ok, err := s.Undismiss(ctx, "acme/shop", "fp1-aaa"); err != nil || !ok {
			t.Fatalf("undo = %v, %v", ok, err)
		}
		if ok, err := s.Undismiss(ctx, "acme/shop", "fp1-aaa"); err != nil || ok {
			t.Fatalf("undo twice = %v, %v; want nothing undone", ok, err)
		}
		set, _ = s.DismissedFingerprints(ctx, "acme/shop")
		if set["fp1-aaa"] || !set["fp1-bbb"] {
			t.Errorf("after the undo: %v", set)
		}
		// The other repository's dismissal of the same fingerprint stands.
		if set, _ := s.DismissedFingerprints(ctx, "acme/other"); !set["fp1-aaa"] {
			t.Error("undoing in acme/shop undid acme/other's dismissal")
		}
	})
}
