package hostd

import (
	"context"
	"encoding/json"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/shared/hostv1"
)

// openWithAllow opens a session stream, makes one write its front end
// allows for the session, and leaves the stream open.
func openWithAllow(t *testing.T, c *Client, path string) hostv1.Host_SessionClient {
	t.Helper()
	stream, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{Asker: true}}})
	args := `{"path":"` + path + `","content":"x"}`
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: "write_file", Args: []byte(args)}}})
	for {
		m, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Approval:
			stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: x.Approval.Id, Answer: int32(approval.AllowSession)}}})
		case *hostv1.HostMessage_Outcome:
			return stream
		}
	}
}

func askAllows(t *testing.T, stream hostv1.Host_SessionClient, req *hostv1.AllowsRequest) ([]approval.Allow, string) {
	t.Helper()
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Allows{Allows: req}})
	for {
		m, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if rep := m.GetAllows(); rep != nil {
			var list []approval.Allow
			if err := json.Unmarshal(rep.Allows, &list); err != nil {
				t.Fatal(err)
			}
			return list, rep.Note
		}
	}
}

// TestAllowsAreTheSessionsOwn: /approvals through the host lists and
// revokes the asking stream's own session's allows only; another open
// session's allow is neither listed nor revoked.
func TestAllowsAreTheSessionsOwn(t *testing.T) {
	th := startHost(t, -1)
	c := th.dial(t)
	a := openWithAllow(t, c, "a.out")
	defer a.CloseSend()
	b := openWithAllow(t, c, "b.out")
	defer b.CloseSend()
	if n := len(th.h.Approvals.Sessions.List()); n != 2 {
		t.Fatalf("%d allows, want one per session", n)
	}
	list, _ := askAllows(t, a, &hostv1.AllowsRequest{})
	if len(list) != 1 || list[0].Tool != "write_file" {
		t.Fatalf("session a lists %+v, want its own one allow", list)
	}
	if _, note := askAllows(t, a, &hostv1.AllowsRequest{RevokeAll: true}); note != "revoked 1 session approval(s)" {
		t.Fatalf("revoke all: %q", note)
	}
	left := th.h.Approvals.Sessions.List()
	if len(left) != 1 || left[0].Session == list[0].Session {
		t.Fatalf("after a's revoke all: %+v, want b's allow alone", left)
	}
	if list, _ := askAllows(t, b, &hostv1.AllowsRequest{}); len(list) != 1 {
		t.Fatalf("b lost its allow: %+v", list)
	}
}
