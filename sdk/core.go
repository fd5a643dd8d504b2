package sdk

import "demiurge.dev/shared/toolsetv1"

// CoreControl asks the host to run the calling call's core-version action
// (rollback_core, evolve_core) with the call's own arguments (the host reads them from
// the call it approved, not from this request). The host answers only the
// built-in tools of that name; its answer is the model's payload as JSON.
func (c *Context) CoreControl() (string, error) {
	h, err := c.hostClient()
	if err != nil {
		return "", err
	}
	resp, err := h.CoreControl(c, &toolsetv1.CoreControlRequest{InvocationId: c.InvocationID})
	return resp.GetResultJson(), err
}
