package dispatch

import "context"

type bindingKey struct{}

// WithBinding carries bind, which gives a dispatch turn the running
// model turn's front end (its approver, its clarify) and its call count,
// to dispatch turns made on the way for that model turn: the pipeline
// slots' turns (host/toolhost), so that a slot's tool call is approved,
// asked and counted as the turn's own calls are.
func WithBinding(ctx context.Context, bind func(*Turn)) context.Context {
	return context.WithValue(ctx, bindingKey{}, bind)
}

// Bind applies ctx's binding to t, if ctx carries one; without one t
// keeps the host's resolver, whose approver (none: DenyAll) asks no one.
func Bind(ctx context.Context, t *Turn) {
	if bind, ok := ctx.Value(bindingKey{}).(func(*Turn)); ok && bind != nil {
		bind(t)
	}
}
