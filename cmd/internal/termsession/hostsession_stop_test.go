package termsession

import (
	"context"
	"sync"
	"testing"

	"demiurge.dev/shared/hostv1"
	"demiurge.dev/shared/turnevent"
)

// unansweredView is a view whose clarify questions go unanswered, as an
// editor's do when session/cancel ends them.
type unansweredView struct{}

func (unansweredView) Show(turnevent.Event)             {}
func (unansweredView) ShowChild(turnevent.Event)        {}
func (unansweredView) Output(string, string, string)    {}
func (unansweredView) Progress(string, string, float64) {}
func (unansweredView) Warn(string)                      {}
func (unansweredView) Opened(string)                    {}
func (unansweredView) Clarify(context.Context, string, []string) (string, bool, error) {
	return "", false, context.Canceled
}

// TestStoppedTurnIsInterruptedBeforeItsAnswer: when the foreground turn's
// context has ended, the host is asked to stop it before the answer that
// end caused (an approval's deny, a clarify's "no answer", an editor
// request's error), so the host never takes that answer and goes on to
// another model request (TestACPBadInput failed that way under load); and
// the turn is interrupted once, also when reply sees the end after.
func TestStoppedTurnIsInterruptedBeforeItsAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(hs *HostSession)
	}{
		{"approval", func(hs *HostSession) {
			hs.approve(&hostv1.ApprovalRequest{Id: 1, Request: []byte(`{"tool":"write_file"}`)})
		}},
		{"clarify", func(hs *HostSession) { hs.clarify(&hostv1.ClarifyRequest{Id: 1, Question: "which?"}) }},
		{"editor", func(hs *HostSession) { hs.editor(&hostv1.EditorRequest{Id: 1, Method: "fs/write_text_file"}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var sent []string
			hs := &HostSession{
				View: unansweredView{}, asks: context.Background(),
				// As the ACP approver answers a question session/cancel ended.
				approver: func(context.Context, []byte) int32 { return 0 },
				send: func(m *hostv1.FrontEndMessage) error {
					mu.Lock()
					defer mu.Unlock()
					if _, ok := m.Msg.(*hostv1.FrontEndMessage_Interrupt); ok {
						sent = append(sent, "interrupt")
					} else {
						sent = append(sent, "answer")
					}
					return nil
				},
			}
			ctx, cancel := context.WithCancel(context.Background())
			fg, leave := hs.enterForeground(ctx) // as reply does
			defer leave()
			cancel() // session/cancel; reply's own Interrupt has not gone yet
			tc.answer(hs)
			fg.interrupt() // reply's, once it sees the end
			mu.Lock()
			defer mu.Unlock()
			if len(sent) != 2 || sent[0] != "interrupt" || sent[1] != "answer" {
				t.Fatalf("sent %v, want [interrupt answer]: the answer reached the host before the Interrupt, or the Interrupt went twice", sent)
			}
		})
	}
}
