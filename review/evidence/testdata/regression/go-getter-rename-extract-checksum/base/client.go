package getter

import "net/url"

// Client downloads a source.
type Client struct {
	Src string
}

// Get downloads the source, checking its checksum when the URL names one.
func (c *Client) Get() error {
	u, err := url.Parse(c.Src)
	if err != nil {
		return err
	}
	checksum, err := checksumHashAndValue(u) // can return nil nil
	if err != nil {
		return err
	}
	_ = checksum
	return nil
}
