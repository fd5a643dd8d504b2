package hostd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/shared/hostv1"
)

// tasksAsk sends one task request through the host's Tasks call and
// returns its replies.
func tasksAsk(t *testing.T, c *Client, principal string, req map[string]any) []map[string]any {
	t.Helper()
	b, _ := json.Marshal(req)
	stream, err := c.Tasks(context.Background(), &hostv1.TasksRequest{Principal: principal, Request: b})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for {
		rep, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(rep.Reply, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
}

// TestTasksCallIsPerPrincipal: the host socket's Tasks answers for the
// front end's principal only. Principal x does not see, show or cancel
// the operator's running task, and a request of x's that claims the
// operator's principal is refused; the operator lists and cancels it.
func TestTasksCallIsPerPrincipal(t *testing.T) {
	th := startHost(t, -1)
	c := th.dial(t)
	out, _, err := call(context.Background(), c, "", "terminal", `{"command":"sleep 60","background":true}`, approval.AllowOnce)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	id := regexp.MustCompile(`task_[0-9a-f]{20}`).FindString(out.Views.Card.Body + out.Views.Card.Title + out.Views.Model.String())
	if id == "" {
		t.Fatalf("no task id in %+v", out.Views)
	}
	root := th.h.RootPrincipal()
	all := func(p string) map[string]any { return map[string]any{"principal": p, "all_sessions": true} }

	rep := tasksAsk(t, c, "x", map[string]any{"op": "list", "principal": "x", "all_sessions": true})
	if b, _ := json.Marshal(rep); strings.Contains(string(b), id) {
		t.Fatalf("x listed the operator's task: %s", b)
	}
	for _, op := range []string{"show", "cancel"} {
		req := all("x")
		req["op"], req["id"] = op, id
		rep = tasksAsk(t, c, "x", req)
		if len(rep) != 1 || rep[0]["not_found"] != true {
			t.Fatalf("x %s of the operator's task: %v", op, rep)
		}
	}
	claim := all(root)
	claim["op"] = "list"
	rep = tasksAsk(t, c, "x", claim)
	if len(rep) != 1 || !strings.Contains(rep[0]["error"].(string), "answers only for x") {
		t.Fatalf("x claiming the operator's principal: %v", rep)
	}

	mine := all(root)
	mine["op"] = "list"
	if b, _ := json.Marshal(tasksAsk(t, c, "", mine)); !strings.Contains(string(b), id) {
		t.Fatalf("the operator's list lacks its task: %s", b)
	}
	mine["op"], mine["id"] = "cancel", id
	rep = tasksAsk(t, c, "", mine)
	if len(rep) != 1 || rep[0]["task"] == nil {
		t.Fatalf("the operator's cancel: %v", rep)
	}
}
