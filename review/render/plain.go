package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence starts s with a capital letter unless its first word is code: an identifier or
// expression ("h.db.QueryRow", "os.Open", "userID", "rows_affected", "fn()") keeps its case, as
// does a word that snippet (the line the text is about) uses as an identifier.
func Sentence(s, snippet string) string {
	word, _, _ := strings.Cut(s, " ")
	word = strings.TrimRight(word, ",:;")
	if word == "" || looksLikeCode(word) || usesIdentifier(snippet, word) {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// looksLikeCode reports whether a word is written as code: it holds a dot, an underscore,
// brackets, a backtick or a digit, or a capital after its first letter.
func looksLikeCode(word string) bool {
	if strings.ContainsAny(word, "._()[]{}`*&/=<>0123456789") {
		return true
	}
	for i, r := range word {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// usesIdentifier reports whether code uses word as a whole identifier.
func usesIdentifier(code, word string) bool {
	isIdent := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	for _, f := range strings.FieldsFunc(code, func(r rune) bool { return !isIdent(r) }) {
		if f == word {
			return true
		}
	}
	return false
}
