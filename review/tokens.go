package review

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// Tokenizer counts tokens offline with o200k_base, the encoding of current OpenAI models; for
// other providers it is a close estimate, which is all a budget needs.
type Tokenizer struct {
	enc *tiktoken.Tiktoken
}

var (
	tokenizerOnce sync.Once
	tokenizer     *Tokenizer
	tokenizerErr  error
)

// DefaultTokenizer returns the shared tokenizer. The encodings are embedded in the binary (the
// default loader would download them at run time, which fails offline).
func DefaultTokenizer() (*Tokenizer, error) {
	tokenizerOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
		enc, err := tiktoken.GetEncoding(tiktoken.MODEL_O200K_BASE)
		if err != nil {
			tokenizerErr = fmt.Errorf("failed to load the o200k_base encoding: %w", err)
			return
		}
		tokenizer = &Tokenizer{enc: enc}
	})
	return tokenizer, tokenizerErr
}

// Count returns the number of tokens of s.
func (t *Tokenizer) Count(s string) int {
	return len(t.enc.EncodeOrdinary(s))
}

// Encode returns the tokens of s.
func (t *Tokenizer) Encode(s string) []int { return t.enc.EncodeOrdinary(s) }
