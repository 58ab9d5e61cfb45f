package getter

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
)

// HttpGetter downloads files over HTTP(S).
type HttpGetter struct {
	Client *http.Client
	ctx    context.Context
}

// Context returns the getter's context, cancelled when the client gives up.
func (g *HttpGetter) Context() context.Context {
	if g.ctx == nil {
		return context.Background()
	}
	return g.ctx
}

// GetFile downloads src into dst.
func (g *HttpGetter) GetFile(dst string, src *url.URL) error {
	ctx := g.Context()
	if g.Client == nil {
		g.Client = http.DefaultClient
	}

	req, err := http.NewRequestWithContext(ctx, "GET", src.String(), nil)
	if err != nil {
		return err
	}
	resp, err := g.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("bad response code: %d", resp.StatusCode)
	}

	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = copyReader(ctx, f, resp.Body)
	return err
}

// copyReader copies src to dst, stopping when ctx is cancelled.
func copyReader(ctx context.Context, dst io.Writer, src io.Reader) (int64, error) {
	buf := make([]byte, 32*1024)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		nr, err := src.Read(buf)
		if nr > 0 {
			nw, werr := dst.Write(buf[:nr])
			n += int64(nw)
			if werr != nil {
				return n, werr
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
