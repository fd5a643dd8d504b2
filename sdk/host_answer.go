package sdk

import (
	"encoding/json"
	"errors"
)

// HostAnswer is the result of a tool that only forwards its call to a
// HostServices RPC which answers the model's payload as JSON
// (delegate_task, rollback_core, schedule_manage): "content" becomes the
// result's text and the rest its structured part. A refusal the host
// marked invalid is the model's to read ("refused"); anything else is
// "unavailable", with noHost (when given) as the text for a host that
// does not serve the RPC here.
func HostAnswer(out string, err error, noHost string) *Result {
	if err != nil {
		switch {
		case errors.Is(err, ErrNoHost) && noHost != "":
			return Errorf("unavailable", "%s", noHost)
		case IsInvalid(err):
			return Errorf("refused", "%s", HostMessage(err))
		}
		return Errorf("unavailable", "%s", HostMessage(err))
	}
	var payload map[string]any
	if err := json.Unmarshal([]byte(out), &payload); err != nil {
		return Errorf("unavailable", "the host's answer could not be read")
	}
	content, _ := payload["content"].(string)
	delete(payload, "content")
	return &Result{Content: content, Structured: payload}
}
