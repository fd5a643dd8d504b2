package sdk

import "demiurge.dev/shared/toolsetv1"

// DelegateTask asks the host's spawn gate to start a child agent with the
// calling call's own arguments (the host reads them from the call it
// approved, not from this request). The host answers only the built-in
// delegate_task; its answer is the model's bounded payload as JSON.
func (c *Context) DelegateTask() (string, error) {
	h, err := c.hostClient()
	if err != nil {
		return "", err
	}
	resp, err := h.DelegateTask(c, &toolsetv1.DelegateTaskRequest{InvocationId: c.InvocationID})
	return resp.GetResultJson(), err
}
