// Package conf configures TLS and crypto.
package conf

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
)

// Client is the TLS configuration of outgoing calls.
func Client() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS10} // want: tls-downgraded
}

// Internal talks to internal services.
func Internal() *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // want: tls-downgraded
	}
}

// Modern raises the minimum.
func Modern() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS13}
}

var serverTLS = &tls.Config{
	MinVersion: tls.VersionTLS12,
	ClientAuth: tls.RequestClientCert, // want: tls-downgraded
}

// Server returns the server configuration.
func Server() *tls.Config { return serverTLS }

// Fingerprint hashes a certificate.
func Fingerprint(der []byte) [16]byte { return md5.Sum(der) } // want: crypto-downgraded

// ETag hashes content for caching.
func ETag(b []byte) [32]byte { return sha256.Sum256(b) }

// Key makes a signing key.
func Key() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 1024) } // want: crypto-downgraded

var _ = sha1.New
