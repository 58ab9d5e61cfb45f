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
	return &tls.Config{MinVersion: tls.VersionTLS12}
}

// Internal talks to internal services.
func Internal() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12}
}

// Modern raises the minimum.
func Modern() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12}
}

var serverTLS = &tls.Config{MinVersion: tls.VersionTLS12, ClientAuth: tls.RequireAndVerifyClientCert}

// Server returns the server configuration.
func Server() *tls.Config { return serverTLS }

// Fingerprint hashes a certificate.
func Fingerprint(der []byte) [32]byte { return sha256.Sum256(der) }

// ETag hashes content for caching.
func ETag(b []byte) [20]byte { return sha1.Sum(b) }

// Key makes a signing key.
func Key() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 4096) }

var _ = md5.New
