package gin

import (
	"errors"
	"log"
	"net/http"
	"net/url"
)

// Context carries one request.
type Context struct {
	Request            *http.Request
	formCache          url.Values
	maxMultipartMemory int64
}

func (c *Context) initFormCache() {
	if c.formCache == nil {
		c.formCache = make(url.Values)
		req := c.Request
		if req != nil {
			if err := req.ParseMultipartForm(c.maxMultipartMemory); err != nil {
				if !errors.Is(err, http.ErrNotMultipart) {
					log.Printf("error on parse multipart form array: %v", err)
				}
			}
			c.formCache = req.PostForm
		}
	}
}

// GetPostFormArray returns the values of key in the POST form, and whether there were any.
func (c *Context) GetPostFormArray(key string) ([]string, bool) {
	c.initFormCache()
	values, ok := c.formCache[key]
	return values, ok
}

// PostForm returns the first value of key in the POST form.
func (c *Context) PostForm(key string) string {
	if values, ok := c.GetPostFormArray(key); ok && len(values) > 0 {
		return values[0]
	}
	return ""
}
