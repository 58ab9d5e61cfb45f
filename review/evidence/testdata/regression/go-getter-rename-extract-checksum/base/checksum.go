package getter

import (
	"fmt"
	"net/url"
	"strings"
)

type fileChecksum struct {
	Type  string
	Value string
}

// checksumHashAndValue will return checksum based on checksum parameter of u
func checksumHashAndValue(u *url.URL) (*fileChecksum, error) {
	q := u.Query()
	v := q.Get("checksum")
	if v == "" {
		return nil, nil
	}
	vs := strings.SplitN(v, ":", 2)
	switch len(vs) {
	case 2:
		return &fileChecksum{Type: vs[0], Value: vs[1]}, nil
	default:
		return nil, fmt.Errorf("invalid checksum %q: want type:value", v)
	}
}
