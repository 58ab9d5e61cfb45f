// Package partial imports a module that is not in the module cache: the function using it does
// not type-check, the others do and are still judged by the SSA-based linters.
package partial

import (
	"context"
	"net/http"

	"example.com/absent/dep"
)

// Uses calls into the missing dependency.
func Uses(ctx context.Context) int {
	c := dep.NewClient(ctx)
	return c.Count() + len(dep.Names)
}

// Status never closes the response body.
func Status(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req) // want: bodyclose
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// Closed closes it.
func Closed(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}

// Measured times itself with the missing dependency in a statement of its own: the statement is
// left out and the rest of the function is still judged.
func Measured(ctx context.Context, c *http.Client, url string) (int, error) {
	defer dep.Measure("status")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req) // want: bodyclose
	if err != nil {
		return 0, err
	}
	return resp.StatusCode, nil
}

// HandedOn gives the response to the missing dependency, which may close it: the function is not
// judged.
func HandedOn(ctx context.Context, c *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	dep.Consume(resp)
	return resp.StatusCode, nil
}
