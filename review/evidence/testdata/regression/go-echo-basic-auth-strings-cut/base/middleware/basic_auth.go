package middleware

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
)

// BasicAuthValidator checks a user and password.
type BasicAuthValidator func(user, password string, r *http.Request) (bool, error)

const (
	basic        = "basic"
	defaultRealm = "Restricted"
)

// BasicAuth returns a middleware that checks HTTP basic credentials with validator.
func BasicAuth(realm string, validator BasicAuthValidator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		l := len(basic)

		if len(auth) > l+1 && strings.EqualFold(auth[:l], basic) {
			// Invalid base64 shouldn't be treated as error
			// instead should be treated as invalid client input
			b, err := base64.StdEncoding.DecodeString(auth[l+1:])
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}

			cred := string(b)
			for i := 0; i < len(cred); i++ {
				if cred[i] == ':' {
					// Verify credentials
					valid, err := validator(cred[:i], cred[i+1:], r)
					if err != nil {
						http.Error(w, err.Error(), http.StatusInternalServerError)
						return
					} else if valid {
						next.ServeHTTP(w, r)
						return
					}
					break
				}
			}
		}

		if realm == "" {
			realm = defaultRealm
		}
		if realm != defaultRealm {
			realm = strconv.Quote(realm)
		}

		// Need to return `401` for browsers to pop-up login box.
		w.Header().Set("WWW-Authenticate", basic+" realm="+realm)
		w.WriteHeader(http.StatusUnauthorized)
	})
}
