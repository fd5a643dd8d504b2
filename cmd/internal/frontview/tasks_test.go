package frontview

import (
	"strings"
	"testing"

	"demiurge.dev/host/runtime"
)

// TestTasksShowListsConnections: `tasks show` prints a network task's
// connections through the egress proxy, one line each.
func TestTasksShowListsConnections(t *testing.T) {
	task := runtime.Task{ID: "task_1", State: runtime.TaskSucceeded, Sandbox: "network",
		Network: []byte(`[{"host":"registry.test","port":443,"addr":"93.184.215.14:443","bytes_sent":120,"bytes_received":4096,"verdict":"allowed","kind":"connect"},` +
			`{"host":"127.0.0.1","port":6379,"bytes_sent":0,"bytes_received":0,"verdict":"refused","reason":"127.0.0.1:6379: only ports 80 and 443 are allowed"}]`)}
	var b strings.Builder
	if err := Task(&b, task, nil, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"network    2 connection(s) through the egress proxy",
		"  allowed registry.test:443 via 93.184.215.14:443, 120 bytes sent, 4096 received",
		"  refused 127.0.0.1:6379, 0 bytes sent, 0 received (127.0.0.1:6379: only ports 80 and 443 are allowed)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tasks show lacks %q:\n%s", want, b.String())
		}
	}
}
