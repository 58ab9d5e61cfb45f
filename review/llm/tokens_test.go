package llm

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// longLines are 1 MB single lines of the shapes that defeat tiktoken's byte-pair merge: one
// piece each (letters, punctuation, spaces), and the mixed shapes of minified code and base64.
func longLines(size int) map[string]string {
	rng := rand.New(rand.NewSource(1))
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	blob := make([]byte, size)
	for i := range blob {
		blob[i] = b64[rng.Intn(len(b64))]
	}
	return map[string]string{
		"letters":  strings.Repeat("a", size),
		"equals":   strings.Repeat("=", size),
		"spaces":   strings.Repeat(" ", size) + "x",
		"base64":   string(blob),
		"minified": strings.Repeat("var a=function(b){return b+1};", size/30),
		"unicode":  strings.Repeat("é", size/2),
	}
}

func TestTokenizerBoundsLongPieces(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	// 40 KB (over two segments) keeps the test quick under -race; BenchmarkTokenizerLongLine
	// times 1 MB.
	for name, s := range longLines(40 << 10) {
		n := tok.Count(s)
		if n <= 0 || n > len(s) {
			t.Errorf("%s: %d tokens for %d bytes", name, n, len(s))
		}
		// Over a budget, the count stops soon after the budget.
		if m, err := tok.CountUpTo(context.Background(), s, n/4); err != nil || m <= n/4 || m > n/4+MaxPiece || m >= n {
			t.Errorf("%s: CountUpTo(%d) = %d, %v; want just over the limit", name, n/4, m, err)
		}
		if m, err := tok.CountUpTo(context.Background(), s, n); err != nil || m != n {
			t.Errorf("%s: CountUpTo(its own count %d) = %d, %v", name, n, m, err)
		}
	}
}

// On ordinary text (code, prose) the bounded count is tiktoken's, and Encode gives its tokens.
func TestTokenizerExactOnOrdinaryText(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	ref, err := tiktoken.GetEncoding(tiktoken.MODEL_O200K_BASE)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "admin-export.diff"))
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	for _, name := range []string{"client.go", "reply.go", "tokens.go"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		src = append(src, b...)
	}
	long := strings.Repeat(string(src), 3) // over one segment
	for name, s := range map[string]string{"diff": string(b), "go": long, "prose": "Hello, world! It's 2026; we're testing o200k_base's pre-tokenizer.\n\n\n  indented\r\n", "unicode": "Größe — 日本語のテキスト, ünïcödé  \u00a0 spaces"} {
		want := ref.EncodeOrdinary(s)
		if got := tok.Encode(s); !slices.Equal(got, want) {
			t.Errorf("%s: Encode differs from tiktoken's: %d tokens, want %d", name, len(got), len(want))
		}
		if got, want := tok.Count(s), len(want); got != want {
			// Segments are cut at line breaks, which may split a run of blank lines; allow that.
			if diff := got - want; diff < 0 || diff > strings.Count(s, "\n")/100+2 {
				t.Errorf("%s: Count = %d, exact %d", name, got, want)
			}
		}
	}
}

func TestTokenizerHonoursContext(t *testing.T) {
	tok, err := DefaultTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tok.CountUpTo(ctx, strings.Repeat("a", 1<<20), -1); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled count returned %v", err)
	}
}

// BenchmarkTokenizerLongLine counts 1 MB single lines (tiktoken alone takes minutes on the
// letters, equals and spaces shapes).
func BenchmarkTokenizerLongLine(b *testing.B) {
	tok, err := DefaultTokenizer()
	if err != nil {
		b.Fatal(err)
	}
	for name, s := range longLines(1 << 20) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				tok.Count(s)
			}
		})
	}
}
