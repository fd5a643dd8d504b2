package sdk

import "demiurge.dev/shared/toolsetv1"

// SearchCapabilities searches the calling session's deferred tools by name
// and description and activates the matches for the rest of the session.
// The host answers: only it knows the session's catalog and projection.
func (c *Context) SearchCapabilities(query string, limit int) (*toolsetv1.SearchCapabilitiesResponse, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	return h.SearchCapabilities(c, &toolsetv1.SearchCapabilitiesRequest{InvocationId: c.InvocationID, Query: query, Limit: int32(limit)})
}
