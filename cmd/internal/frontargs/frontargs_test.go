package frontargs

import "testing"

func TestParse(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	for _, tc := range []struct {
		args   []string
		getenv func(string) string
		want   Request
		ok     bool
	}{
		{[]string{"host", "status"}, none, Request{Command: "host status"}, true},
		{[]string{"host", "status", "--json"}, none, Request{Command: "host status", JSON: true}, true},
		{[]string{"--state", "/s", "host", "status"}, none, Request{Command: "host status", State: "/s"}, true},
		{[]string{"--state=/s", "host", "status", "--json"}, none, Request{Command: "host status", State: "/s", JSON: true}, true},
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_STATE": "/e"}), Request{Command: "host status", State: "/e"}, true},
		{[]string{"--state=/s", "host", "status"}, env(map[string]string{"DEMIURGE_STATE": "/e"}), Request{Command: "host status", State: "/s"}, true},
		// Everything else is the full host's.
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_HOST": "off"}), Request{}, false},
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_OUTPUT_CAP_MIB": "x"}), Request{}, false},
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_ARTIFACT_BUDGET_MIB": "1"}), Request{}, false},
		{[]string{"host", "stop"}, none, Request{}, false},
		{[]string{"host"}, none, Request{}, false},
		{[]string{"host", "status", "--json", "--json"}, none, Request{}, false},
		{[]string{"host", "status", "extra"}, none, Request{}, false},
		{[]string{"host", "status", "-h"}, none, Request{}, false},
		{[]string{"--json", "host", "status"}, none, Request{}, false},
		{[]string{"--state", "host", "status"}, none, Request{}, false},
		{[]string{"--state="}, none, Request{}, false},
		{[]string{"--state=", "host", "status"}, none, Request{}, false},
		{[]string{"--state", "/s", "--state", "/t", "host", "status"}, none, Request{}, false},
		{[]string{"--log-level=debug", "host", "status"}, none, Request{}, false},
		{[]string{"--state-x=/s", "host", "status"}, none, Request{}, false},
		{[]string{"tools", "list"}, none, Request{}, false},
		{nil, none, Request{}, false},
	} {
		got, ok := Parse(tc.args, tc.getenv)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}
