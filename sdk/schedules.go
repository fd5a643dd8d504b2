package sdk

import "demiurge.dev/shared/toolsetv1"

// ScheduleManage asks the host's scheduler to run one schedule_manage
// action with the calling call's own arguments (the host reads them from
// the call it approved, not from this request). The host answers only the
// built-in schedule_manage; its answer is the model's payload as JSON.
func (c *Context) ScheduleManage() (string, error) {
	h, err := c.hostClient()
	if err != nil {
		return "", err
	}
	resp, err := h.ScheduleManage(c, &toolsetv1.ScheduleManageRequest{InvocationId: c.InvocationID})
	return resp.GetResultJson(), err
}
