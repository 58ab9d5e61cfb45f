package llm

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer counts tokens offline with o200k_base, the encoding of current OpenAI models; for
// other providers it is a close estimate, which is all a budget needs.
//
// tiktoken's byte-pair merge is quadratic in the length of one piece of the pre-tokenizer (a run
// of letters, of punctuation or of spaces), so one 1 MB line of minified code or base64 takes
// minutes with tiktoken-go's Encode. The tokenizer therefore splits the text into the encoding's
// pieces itself and merges a piece longer than MaxPiece bytes in MaxPiece-byte chunks: the work is
// linear in the text, and the count is exact for ordinary text and at most one token per chunk
// high for long runs, which is the safe side of a budget.
type Tokenizer struct {
	ranks  map[string]int
	pieces *regexp2.Regexp
}

// MaxPiece is the longest pre-tokenizer piece, in bytes, encoded in one go.
const MaxPiece = 256

// o200kFile names the embedded encoding for tiktoken-go-loader.
const o200kFile = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"

// o200kPattern is the pre-tokenizer of o200k_base (as tiktoken-go defines it).
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^\s\p{L}\p{N}]+[\r\n/]*` +
	`|\s*[\r\n]+` +
	`|\s+(?!\S)` +
	`|\s+`

// segment is how much text is split into pieces at a time (the regexp works on runes of the whole
// input, so a long text is fed to it a line, or a segment of a long line, at a time) and how often
// the context is checked.
const segment = 16 << 10

var (
	tokenizerOnce sync.Once
	tokenizer     *Tokenizer
	tokenizerErr  error
)

// DefaultTokenizer returns the shared tokenizer. The encodings are embedded in the binary (the
// default loader would download them at run time, which fails offline).
func DefaultTokenizer() (*Tokenizer, error) {
	tokenizerOnce.Do(func() {
		ranks, err := tiktokenloader.NewOfflineLoader().LoadTiktokenBpe(o200kFile)
		if err != nil {
			tokenizerErr = fmt.Errorf("failed to load the o200k_base encoding: %w", err)
			return
		}
		re, err := regexp2.Compile(o200kPattern, regexp2.None)
		if err != nil {
			tokenizerErr = fmt.Errorf("failed to compile the o200k_base pre-tokenizer: %w", err)
			return
		}
		tokenizer = &Tokenizer{ranks: ranks, pieces: re}
	})
	return tokenizer, tokenizerErr
}

// Count returns the number of tokens of s.
func (t *Tokenizer) Count(s string) int {
	n, _ := t.CountUpTo(context.Background(), s, -1)
	return n
}

// CountUpTo counts the tokens of s, stopping as soon as the count passes limit (limit < 0: no
// limit), so that a text far over a budget costs only the budget's worth of work. It returns the
// context's error, with the count so far, when ctx ends first.
func (t *Tokenizer) CountUpTo(ctx context.Context, s string, limit int) (int, error) {
	n := 0
	for len(s) > 0 {
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("token count stopped: %w", err)
		}
		seg := nextSegment(s)
		s = s[len(seg):]
		left := -1
		if limit >= 0 {
			left = limit - n
		}
		n += t.countSegment(seg, left)
		if limit >= 0 && n > limit {
			return n, nil
		}
	}
	return n, nil
}

// nextSegment cuts the next lines of s up to segment bytes, or segment bytes of a longer line (at
// a rune boundary, preferably before a space).
func nextSegment(s string) string {
	if len(s) <= segment {
		return s
	}
	if i := strings.LastIndexByte(s[:segment], '\n'); i >= 0 {
		// Keep a run of line breaks together, as the pre-tokenizer does.
		j := i + 1
		for j < len(s) && (s[j] == '\n' || s[j] == '\r') {
			j++
		}
		return s[:j]
	}
	cut := segment
	if i := strings.LastIndexByte(s[:segment], ' '); i > segment/2 {
		cut = i
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut == 0 {
		cut = segment
	}
	return s[:cut]
}

// countSegment counts the tokens of s, stopping once the count passes limit (< 0: no limit).
func (t *Tokenizer) countSegment(s string, limit int) int {
	n := 0
	runes := []rune(s)
	m, err := t.pieces.FindRunesMatch(runes)
	for err == nil && m != nil && (limit < 0 || n <= limit) {
		n += t.countPiece(string(runes[m.Index:m.Index+m.Length]), limit-n)
		m, err = t.pieces.FindNextMatch(m)
	}
	return n
}

// countPiece encodes one piece, in MaxPiece-byte chunks when it is longer, stopping once the count
// passes limit (< 0: no limit).
func (t *Tokenizer) countPiece(p string, limit int) int {
	n := 0
	for len(p) > MaxPiece && (limit < 0 || n <= limit) {
		cut := MaxPiece
		for cut > 0 && !utf8.RuneStart(p[cut]) {
			cut--
		}
		if cut == 0 {
			cut = MaxPiece
		}
		n += t.merge(p[:cut], nil)
		p = p[cut:]
	}
	if p != "" && (limit < 0 || n <= limit) {
		n += t.merge(p, nil)
	}
	return n
}

// Encode returns the exact tokens of s. It is quadratic in the longest piece of s: use it on texts
// of known shape only (Count is the bounded way to size a text).
func (t *Tokenizer) Encode(s string) []int {
	var out []int
	runes := []rune(s)
	m, err := t.pieces.FindRunesMatch(runes)
	for err == nil && m != nil {
		t.merge(string(runes[m.Index:m.Index+m.Length]), func(tok int) { out = append(out, tok) })
		m, err = t.pieces.FindNextMatch(m)
	}
	return out
}

// merge is tiktoken's byte-pair merge of one piece (after tiktoken-go's bytePairMerge, MIT): it
// returns the number of tokens, and hands each to emit when emit is set.
func (t *Tokenizer) merge(piece string, emit func(int)) int {
	if r, ok := t.ranks[piece]; ok {
		if emit != nil {
			emit(r)
		}
		return 1
	}
	if len(piece) == 1 {
		if emit != nil {
			emit(t.ranks[piece])
		}
		return 1
	}
	// parts[i] is the start of the i-th part and the rank of merging it with the next one.
	type part struct{ start, rank int }
	parts := make([]part, len(piece)+1)
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := t.ranks[piece[parts[i].start:parts[i+skip+2].start]]; ok {
				return r
			}
		}
		return math.MaxInt
	}
	for i := range parts {
		parts[i] = part{i, math.MaxInt}
	}
	for i := 0; i < len(parts)-2; i++ {
		parts[i].rank = rank(i, 0)
	}
	for len(parts) > 1 {
		best, at := math.MaxInt, -1
		for i := 0; i < len(parts)-1; i++ {
			if parts[i].rank < best {
				best, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts[at].rank = rank(at, 1)
		if at > 0 {
			parts[at-1].rank = rank(at-1, 1)
		}
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	if emit != nil {
		for i := 0; i+1 < len(parts); i++ {
			emit(t.ranks[piece[parts[i].start:parts[i+1].start]])
		}
	}
	return len(parts) - 1
}
