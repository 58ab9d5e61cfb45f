package dashboard

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Cookie names.
const (
	sessionCookie = "debatebot_session"
	// stateCookie carries the OAuth state between /login and /oauth/callback.
	stateCookie = "debatebot_oauth_state"
)

// sessionLifetime is how long a sign-in lasts: GitHub's user-to-server tokens expire after
// eight hours.
const sessionLifetime = 8 * time.Hour

// session is a signed-in user, kept in a cookie signed with HMAC-SHA256. The user's GitHub token
// in it is encrypted as well (AES-GCM), so that a cookie seen in a log or a proxy does not hand
// out the token.
type session struct {
	Login string `json:"l"`
	// Token is the user's GitHub token, encrypted (base64).
	Token string `json:"t"`
	// Nonce seeds the session's CSRF token.
	Nonce string `json:"n"`
	// Expires is when the session ends (Unix seconds).
	Expires int64 `json:"e"`
}

// sealer signs and encrypts cookies with keys derived from the session key.
type sealer struct {
	sign []byte
	aead cipher.AEAD
}

func newSealer(key []byte) (*sealer, error) {
	if len(key) < 16 {
		return nil, errors.New("the session key is shorter than 16 bytes")
	}
	derive := func(purpose string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("debatebot dashboard " + purpose))
		return m.Sum(nil)
	}
	block, err := aes.NewCipher(derive("token encryption"))
	if err != nil {
		return nil, fmt.Errorf("failed to derive the session cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("failed to derive the session cipher: %w", err)
	}
	return &sealer{sign: derive("cookie signature"), aead: aead}, nil
}

func (s *sealer) mac(data string) []byte {
	m := hmac.New(sha256.New, s.sign)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// seal returns v as a signed cookie value: base64(JSON) "." base64(HMAC).
func (s *sealer) seal(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("failed to encode a cookie: %w", err)
	}
	payload := base64.RawURLEncoding.EncodeToString(data)
	return payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload)), nil
}

// open checks a cookie value's signature and decodes it into v.
func (s *sealer) open(value string, v any) error {
	payload, sig, ok := strings.Cut(value, ".")
	if !ok {
		return errors.New("the cookie is not signed")
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(payload)) {
		return errors.New("the cookie's signature does not match")
	}
	data, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return fmt.Errorf("the cookie is not base64: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("the cookie is not a session: %w", err)
	}
	return nil
}

func (s *sealer) encrypt(plain string) (string, error) {
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("failed to encrypt the token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, []byte(plain), nil)), nil
}

func (s *sealer) decrypt(sealed string) (string, error) {
	data, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil || len(data) < s.aead.NonceSize() {
		return "", errors.New("the session's token is not valid")
	}
	plain, err := s.aead.Open(nil, data[:s.aead.NonceSize()], data[s.aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("the session's token does not decrypt")
	}
	return string(plain), nil
}

// csrf is the session's CSRF token, which every form posts back.
func (s *sealer) csrf(sess *session) string {
	return base64.RawURLEncoding.EncodeToString(s.mac("csrf\x00" + sess.Nonce + "\x00" + sess.Login))
}

// checkCSRF compares a posted token with the session's in constant time.
func (s *sealer) checkCSRF(sess *session, posted string) bool {
	return subtleEqual(posted, s.csrf(sess))
}

func randomString(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the system's randomness is gone
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// setCookie sets a cookie as every cookie of the dashboard is: HttpOnly, Secure, SameSite=Lax.
func setCookie(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, Secure: true, SameSite: http.SameSiteLaxMode}
	if maxAge < 0 {
		c.MaxAge = -1
	} else {
		c.MaxAge = int(maxAge / time.Second)
	}
	http.SetCookie(w, c)
}

func subtleEqual(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// tokenKey names a token in the access cache without keeping the token itself there.
func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}
