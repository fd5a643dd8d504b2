package sdk

import "demiurge.dev/shared/toolsetv1"

// ToolsList returns the calling turn's resolved catalog as the model sees
// it, in catalog order: each tool's name, description, source and
// effective policy. The host answers; a plugin cannot list another turn's
// tools.
func (c *Context) ToolsList() ([]*toolsetv1.ToolListing, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	resp, err := h.ToolsList(c, &toolsetv1.ToolsListRequest{InvocationId: c.InvocationID})
	return resp.GetTools(), err
}
