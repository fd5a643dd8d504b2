package mcpbind

import "testing"

// TestCheckBind: loopback only, unless public with an operator's token.
func TestCheckBind(t *testing.T) {
	cases := []struct {
		addr          string
		public, token bool
		ok            bool
	}{
		{"127.0.0.1:7777", false, false, true},
		{"localhost:7777", false, false, true},
		{"[::1]:7777", false, false, true},
		{"0.0.0.0:7777", false, false, false},
		{":7777", false, false, false},
		{"[::]:7777", false, false, false},
		{"192.168.1.5:7777", false, true, false},
		{"0.0.0.0:7777", true, false, false},
		{"0.0.0.0:7777", true, true, true},
		{"127.0.0.1", false, false, false},
	}
	for _, c := range cases {
		if err := CheckBind(c.addr, c.public, c.token); (err == nil) != c.ok {
			t.Errorf("%s public=%v token=%v: %v", c.addr, c.public, c.token, err)
		}
	}
}
