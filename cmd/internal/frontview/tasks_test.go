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

// TestTasksShowSaysWhatWasFolded: past the connections kept in full, the
// folded entry is one line saying how many more, their bytes and hosts,
// and the total counts them.
func TestTasksShowSaysWhatWasFolded(t *testing.T) {
	task := runtime.Task{ID: "task_1", State: runtime.TaskSucceeded, Sandbox: "network",
		Network: []byte(`[{"host":"registry.test","port":443,"bytes_sent":1,"bytes_received":2,"verdict":"allowed","kind":"connect"},` +
			`{"kind":"folded","folded":{"count":99998,"bytes_sent":10,"bytes_received":20,"verdicts":{"allowed":99998},"hosts":[{"host":"registry.test","port":443,"count":99990,"reached":99990}],"other_hosts_connections":8,"other_hosts_reached":8}}]`)}
	var b strings.Builder
	if err := Task(&b, task, nil, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"network    99999 connection(s) through the egress proxy",
		"  and 99998 more, folded: 10 bytes sent, 20 received; registry.test:443 ×99990 and 8 to other hosts",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("tasks show lacks %q:\n%s", want, b.String())
		}
	}
}
