package hostd

import (
	"context"

	"demiurge.dev/shared/hostv1"
)

// clarify asks this front end the model's question and waits for its
// answer; a front end that goes away, or ctx's end, is no answer.
func (f *frontEnd) clarify(ctx context.Context, question string, choices []string) (string, bool, error) {
	ch := make(chan *hostv1.ClarifyAnswer, 1)
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.clarifies[id] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.clarifies, id)
		f.mu.Unlock()
	}()
	req := &hostv1.ClarifyRequest{Id: id, Question: question, Choices: choices}
	if err := f.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Clarify{Clarify: req}}); err != nil {
		return "", false, nil
	}
	select {
	case a := <-ch:
		return a.Text, a.Answered, nil
	case <-ctx.Done():
		return "", false, ctx.Err()
	case <-f.ctx.Done():
		return "", false, nil
	}
}

func (f *frontEnd) clarifyAnswer(a *hostv1.ClarifyAnswer) {
	f.mu.Lock()
	ch := f.clarifies[a.Id]
	f.mu.Unlock()
	if ch == nil {
		return // not asked, or no longer waited for
	}
	select {
	case ch <- a:
	default:
	}
}
