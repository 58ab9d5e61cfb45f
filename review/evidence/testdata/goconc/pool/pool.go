// Package pool takes buffers from a pool and puts them back.
package pool

import (
	"bytes"
	"encoding/json"
	"sync"
)

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	b.Reset()
	buffers.Put(b)
}

// Encode returns the bytes of a buffer the deferred put hands to the next caller.
func Encode(v any) ([]byte, error) {
	b := getBuffer()
	defer putBuffer(b)
	if err := json.NewEncoder(b).Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil // want: pool-use-after-put
}

// EncodeCopy returns a copy.
func EncodeCopy(v any) ([]byte, error) {
	b := getBuffer()
	defer putBuffer(b)
	if err := json.NewEncoder(b).Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(b.Bytes()), nil
}

// EncodeString returns a string, a copy of the bytes.
func EncodeString(v any) (string, error) {
	b := getBuffer()
	defer buffers.Put(b)
	b.Reset()
	err := json.NewEncoder(b).Encode(v)
	return b.String(), err
}

// Logged puts the buffer back, then logs its bytes.
func Logged(v any, log func([]byte)) {
	b := getBuffer()
	_ = json.NewEncoder(b).Encode(v)
	out := b.Bytes()
	putBuffer(b)
	log(out) // want: pool-use-after-put
}

// Each reuses a buffer per item and puts it back after the last use.
func Each(items []any, log func([]byte)) {
	for _, v := range items {
		b := getBuffer()
		_ = json.NewEncoder(b).Encode(v)
		log(b.Bytes())
		putBuffer(b)
	}
}
