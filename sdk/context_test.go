package sdk

import (
	"context"
	"errors"
	"testing"
)

// A tool's unit test builds a Context by hand: events go nowhere and host
// services say plainly that there is no host.
func TestContextWithoutHost(t *testing.T) {
	c := &Context{Context: context.Background(), Workspace: t.TempDir()}
	if err := c.Progress("half", 0.5); err != nil {
		t.Errorf("Progress without a stream = %v, want nil", err)
	}
	if err := c.Output("stdout", []byte("x")); err != nil {
		t.Errorf("Output without a stream = %v, want nil", err)
	}
	if err := c.Artifact("a.bin", "application/octet-stream", 1, "00"); err != nil {
		t.Errorf("Artifact without a stream = %v, want nil", err)
	}
	if err := c.Require("fs.read"); !errors.Is(err, ErrNoHost) {
		t.Errorf("Require = %v, want ErrNoHost", err)
	}
	if ok, err := c.Can("fs.read"); ok || !errors.Is(err, ErrNoHost) {
		t.Errorf("Can = %v, %v; want false, ErrNoHost", ok, err)
	}
	if err := c.Deliver("hi"); !errors.Is(err, ErrNoHost) {
		t.Errorf("Deliver = %v, want ErrNoHost", err)
	}
}
