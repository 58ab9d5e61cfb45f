package review

import (
	"strings"
	"testing"

	"github.com/debatebot/debatebot/review/evidence"
	"github.com/debatebot/debatebot/toulmin"
	"github.com/debatebot/debatebot/voting"
)

// jwtSigner signs with a literal key; the variable's name says nothing about secrets.
const jwtSigner = `package auth

import (
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func Issue(user string) (string, error) {
	claims := jwt.MapClaims{"sub": user, "exp": time.Now().Add(time.Hour).Unix()}
	token := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
	return token.SignedString([]byte("s3cr3t"))
}
`

// TestKeysByUse: a literal that reaches a key parameter is a credential whatever its name and
// length; a key read from the environment without a literal fallback, or a literal in a test
// file, is not.
func TestKeysByUse(t *testing.T) {
	runAnalyzerCases(t, map[string]analyzerCase{
		"jwt signing key as []byte literal": {files: map[string]string{"auth/token.go": jwtSigner},
			rule: evidence.RuleKeyByUse, want: []string{"auth/token.go:12"}},
		"package constant into hmac.New": {files: map[string]string{"sign/mac.go": `package sign

import (
	"crypto/hmac"
	"crypto/sha256"
)

const signingKey = "k"

func Sum(msg []byte) []byte {
	m := hmac.New(sha256.New, []byte(signingKey))
	m.Write(msg)
	return m.Sum(nil)
}
`}, rule: evidence.RuleKeyByUse, want: []string{"sign/mac.go:11"}},
		"local constant into aes.NewCipher": {files: map[string]string{"box/seal.go": `package box

import "crypto/aes"

func Block() error {
	const k = "0123456789abcdef"
	_, err := aes.NewCipher([]byte(k))
	return err
}
`}, rule: evidence.RuleKeyByUse, want: []string{"box/seal.go:7"}},
		"environment with literal fallback": {files: map[string]string{"auth/token.go": `package auth

import (
	"os"

	jwt "github.com/golang-jwt/jwt/v4"
)

func Sign(t *jwt.Token) (string, error) {
	k := os.Getenv("JWT_KEY")
	if k == "" {
		k = "dev-only"
	}
	return t.SignedString([]byte(k))
}
`}, rule: evidence.RuleKeyByUse, want: []string{"auth/token.go:14"}},
		"cmp.Or fallback into a cookie store": {files: map[string]string{"web/session.go": `package web

import (
	"cmp"
	"os"

	"github.com/gorilla/sessions"
)

var store = newStore()

func newStore() *sessions.CookieStore {
	return sessions.NewCookieStore([]byte(cmp.Or(os.Getenv("SESSION_KEY"), "cookie-key")))
}
`}, rule: evidence.RuleKeyByUse, want: []string{"web/session.go:13"}},
		"verification key returned by a keyfunc": {files: map[string]string{"auth/verify.go": `package auth

import "github.com/dgrijalva/jwt-go"

var material = []byte("verify-me")

func Verify(s string) (*jwt.Token, error) {
	return jwt.Parse(s, func(t *jwt.Token) (interface{}, error) {
		return material, nil
	})
}
`}, rule: evidence.RuleKeyByUse, want: []string{"auth/verify.go:8"}},
		"basic auth password literal": {files: map[string]string{"client/api.go": `package client

import "net/http"

func Get(url string) (*http.Response, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth("admin", "hunter2")
	return http.DefaultClient.Do(req)
}
`}, rule: evidence.RuleKeyByUse, want: []string{"client/api.go:10"}},
		"package variable in another file of the change": {files: map[string]string{
			"api/config.go": "package api\n\nvar tokenKey = []byte(\"t0k3n-k3y\")\n",
			"api/handler.go": `package api

import "github.com/golang-jwt/jwt/v5"

func Token(claims jwt.MapClaims) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(tokenKey)
}
`}, rule: evidence.RuleKeyByUse, want: []string{"api/handler.go:6"}},
		"literal initialiser overridden from the environment in init": {files: map[string]string{"api/keys.go": `package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"os"
)

var macKey = []byte("fallback-key")

func init() {
	if os.Getenv("MAC_KEY") != "" {
		macKey = []byte(os.Getenv("MAC_KEY"))
	}
}

func Mac() hash.Hash { return hmac.New(sha256.New, macKey) }
`}, rule: evidence.RuleKeyByUse, want: []string{"api/keys.go:18"}},
		"parser method with a declared keyfunc": {files: map[string]string{"auth/parse.go": `package auth

import "github.com/golang-jwt/jwt/v5"

func key(*jwt.Token) (any, error) {
	const k = "verify-key"
	return []byte(k), nil
}

func Check(s string) error {
	_, err := jwt.NewParser().Parse(s, key)
	return err
}
`}, rule: evidence.RuleKeyByUse, want: []string{"auth/parse.go:11"}},
		"safe: package variable set from the environment in another file": {files: map[string]string{
			"api/config.go": "package api\n\nimport \"os\"\n\nvar tokenKey []byte\n\nfunc Load() { tokenKey = []byte(os.Getenv(\"TOKEN_KEY\")) }\n",
			"api/handler.go": `package api

import "github.com/golang-jwt/jwt/v5"

func Token(claims jwt.MapClaims) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(tokenKey)
}
`}, rule: evidence.RuleKeyByUse},
		"flag with a literal default": {files: map[string]string{"cmd/srv/main.go": `package main

import (
	"flag"

	"github.com/gorilla/securecookie"
)

func main() {
	hashKey := flag.String("hash-key", "dev-hash-key", "cookie hash key")
	var blockKey string
	flag.StringVar(&blockKey, "block-key", "", "cookie block key")
	flag.Parse()
	_ = securecookie.New([]byte(*hashKey), []byte(blockKey))
}
`}, rule: evidence.RuleKeyByUse, want: []string{"cmd/srv/main.go:14"}},
		"safe: flag without a default": {files: map[string]string{"cmd/srv/main.go": `package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"flag"
)

func main() {
	key := flag.String("mac-key", "", "MAC key")
	flag.Parse()
	_ = hmac.New(sha256.New, []byte(*key))
}
`}, rule: evidence.RuleKeyByUse},
		"safe: environment without fallback": {files: map[string]string{"auth/token.go": `package auth

import (
	"errors"
	"os"

	"github.com/golang-jwt/jwt/v5"
)

func Sign(t *jwt.Token) (string, error) {
	k := os.Getenv("JWT_KEY")
	if k == "" {
		return "", errors.New("JWT_KEY is not set")
	}
	return t.SignedString([]byte(k))
}
`}, rule: evidence.RuleKeyByUse},
		"safe: key passed in": {files: map[string]string{"sign/mac.go": `package sign

import (
	"crypto/hmac"
	"crypto/sha256"
)

func Sum(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}
`}, rule: evidence.RuleKeyByUse},
		"safe: literal key in a test file": {files: map[string]string{"auth/token_test.go": strings.Replace(jwtSigner, "package auth", "package auth_test", 1)},
			rule: evidence.RuleKeyByUse},
		"safe: SignedString without a jwt import": {files: map[string]string{"other/sign.go": `package other

type signer struct{}

func (signer) SignedString(k []byte) (string, error) { return string(k), nil }

func Use() (string, error) { return signer{}.SignedString([]byte("not-a-jwt")) }
`}, rule: evidence.RuleKeyByUse},
	})
}

// TestKeyByUseEvidence: the finding is critical for a JWT signing key, names the literal's line and
// never shows the literal.
func TestKeyByUseEvidence(t *testing.T) {
	ev := gather(t, changeOf(t, map[string]string{"auth/token.go": jwtSigner}))
	var got *toulmin.Evidence
	for i := range ev {
		if ev[i].Rule == evidence.RuleKeyByUse {
			got = &ev[i]
		}
	}
	if got == nil {
		t.Fatalf("no %s finding:\n%s", evidence.RuleKeyByUse, dump(ev))
	}
	if got.Severity != toulmin.SeverityCritical || got.Stakeholder != Security {
		t.Errorf("severity %s stakeholder %s; want critical, security", got.Severity, got.Stakeholder)
	}
	if !strings.Contains(got.Message, "line 12") || !strings.Contains(got.Message, "SignedString") {
		t.Errorf("message %q does not name the literal's line and the sink", got.Message)
	}
	if strings.Contains(got.Message+got.Snippet, "s3cr3t") {
		t.Errorf("the literal leaks: message %q snippet %q", got.Message, got.Snippet)
	}
}

// TestKeyByUseDebate: a change that keys an HMAC with a constant is held back with
// request_changes, the required change citing the hmac.New line; a JWT signing key is critical, so
// the same vote escalates to a human as DESIGN.md requires of an unrebutted critical finding.
func TestKeyByUseDebate(t *testing.T) {
	const hmacKeyed = `package sign

import (
	"crypto/hmac"
	"crypto/sha256"
)

const signingKey = "k"

func Sum(msg []byte) []byte {
	m := hmac.New(sha256.New, []byte(signingKey))
	m.Write(msg)
	return m.Sum(nil)
}
`
	for _, tc := range []struct {
		name, path, content, cite string
		decision                  voting.Option
	}{
		{"hmac constant", "sign/mac.go", hmacKeyed, "sign/mac.go:11:", voting.RequestChanges},
		{"jwt signing literal", "auth/token.go", jwtSigner, "auth/token.go:12:", voting.Escalate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := runDebate(t, changeOf(t, map[string]string{tc.path: tc.content}), toulmin.ProtocolStandard)
			r := tr.Record
			if r.Decision != tc.decision {
				t.Fatalf("decision %s, want %s; required %v, escalations %+v", r.Decision, tc.decision, r.RequiredChanges, tr.Escalations)
			}
			var cited bool
			for _, c := range r.RequiredChanges {
				cited = cited || strings.HasPrefix(c, tc.cite)
			}
			if !cited {
				t.Errorf("no required change cites %s: %v", tc.cite, r.RequiredChanges)
			}
			security := voting.Option("none")
			for _, b := range r.Votes {
				if b.Agent == Security {
					security = b.Vote
				}
			}
			if security != voting.RequestChanges {
				t.Errorf("security votes %s, want request_changes; votes %+v", security, r.Votes)
			}
			if tc.decision == voting.Escalate && (len(tr.Escalations) == 0 || tr.Escalations[0].Reason != voting.ReasonCriticalUnrebutted) {
				t.Errorf("escalations %+v, want one for the critical finding", tr.Escalations)
			}
		})
	}
}
