package toolhost

import "testing"

// TestHostCredentialsLeaveDirectoriesNumbersAndBooleans: a variable of the
// host's environment whose name only looks like a credential's (PWD, a
// socket path, a limit, a switch) is not redacted in every result; one
// that holds a credential-like value is.
func TestHostCredentialsLeaveDirectoriesNumbersAndBooleans(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"PWD", "/tmp/x-not-there", false},
		{"OLDPWD", "q7Zp-plainvalue-8812", false},
		{"SSH_AUTH_SOCK", dir, false},
		{"SECRET_MODE", "true", false},
		{"TOKEN_COUNT", "4096", false},
		{"API_KEY", "zq8Xk2LmNoPqRsTu77", true},
		{"API_KEY", "/zq8Xk2LmNoPqRsTu77", true}, // not an existing path: base64 may start with '/'
		{"DB_PASSWORD", "hunter", true},
	} {
		if got := credentialValue(c.name, c.value); got != c.want {
			t.Errorf("credentialValue(%s=%q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}
