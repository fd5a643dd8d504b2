package sdk

import (
	"context"
	"testing"

	"demiurge.dev/shared/toolsetv1"
)

func TestInvocations(t *testing.T) {
	var v Invocations
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if !v.Track("a", cancel) || v.Track("a", cancel) {
		t.Fatal("the same id was tracked twice, or not at all")
	}
	if got := v.Health().GetActiveInvocations(); got != 1 {
		t.Fatalf("active = %d, want 1", got)
	}
	if v.Cancel(&toolsetv1.CancelRequest{InvocationId: "b"}).GetFound() {
		t.Error("an unknown id was found")
	}
	if !v.Cancel(&toolsetv1.CancelRequest{InvocationId: "a"}).GetFound() || ctx.Err() == nil {
		t.Error("the running call was not cancelled")
	}
	v.Untrack("a")
	if v.Health().GetActiveInvocations() != 0 || v.Cancel(&toolsetv1.CancelRequest{InvocationId: "a"}).GetFound() {
		t.Error("an ended call is still tracked")
	}
}
