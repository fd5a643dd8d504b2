package main

import "fmt"

func int80(nr, a1, a2, a3 uintptr) uintptr

// compatKeyctl calls keyctl(KEYCTL_GET_KEYRING_ID, session keyring)
// through the i386 system call table (keyctl is 288 there).
func compatKeyctl() error {
	const i386Keyctl, getKeyringID = 288, 0
	sessionKeyring := ^uintptr(2) // KEY_SPEC_SESSION_KEYRING = -3
	r := int64(int32(int80(i386Keyctl, getKeyringID, sessionKeyring, 0)))
	if r < 0 {
		return fmt.Errorf("compat keyctl: errno %d", -r)
	}
	return nil
}
