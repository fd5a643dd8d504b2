package hostd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// frontEndEditor is the editor of a front end that declared one
// (OpenSession.editor, minor 10): an admitted editor tool's effect goes
// down the session's stream as an editor request, and the front end's
// editor reply is the effect's result.
type frontEndEditor struct {
	fe     *frontEnd
	offers toolhost.EditorOffers
}

func newFrontEndEditor(fe *frontEnd, c *hostv1.EditorCapabilities) toolhost.Editor {
	if c == nil || !(c.ReadTextFile || c.WriteTextFile || c.Terminal) {
		return nil
	}
	return frontEndEditor{fe: fe, offers: toolhost.EditorOffers{ReadTextFile: c.ReadTextFile, WriteTextFile: c.WriteTextFile, Terminal: c.Terminal}}
}

func (e frontEndEditor) Offers() toolhost.EditorOffers { return e.offers }

func (e frontEndEditor) Do(ctx context.Context, method string, params any) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	f := e.fe
	ch := make(chan *hostv1.EditorReply, 1)
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.editors[id] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.editors, id)
		f.mu.Unlock()
	}()
	if err := f.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Editor{Editor: &hostv1.EditorRequest{Id: id, Method: method, Params: b}}}); err != nil {
		return nil, fmt.Errorf("the front end is gone: %v", err)
	}
	select {
	case r := <-ch:
		if r.Error != "" {
			return nil, errors.New(r.Error)
		}
		return r.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-f.ctx.Done():
		return nil, errors.New("the front end is gone")
	}
}

// editorReply hands the front end's reply to the request waiting for it;
// one no request waits for is dropped.
func (f *frontEnd) editorReply(r *hostv1.EditorReply) {
	f.mu.Lock()
	ch := f.editors[r.Id]
	f.mu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- r:
	default:
	}
}
