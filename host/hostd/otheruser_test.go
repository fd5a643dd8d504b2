package hostd

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// otherUserDial is the front end of another user: it has the token (as
// if it had stolen it) and the socket is reachable, and it says Hello.
func otherUserDial(sock, token string) {
	conn, err := grpc.NewClient("passthrough:///host.sock",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		}),
		grpc.WithTransportCredentials(peerCreds{}), grpc.WithPerRPCCredentials(tokenCreds(token)))
	if err != nil {
		fmt.Println("dial:", err)
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = hostv1.NewHostClient(conn).Hello(ctx, &hostv1.HelloRequest{ProtocolVersion: hostv1.ProtocolVersion, Config: testConfig})
	if err == nil {
		fmt.Println("answered")
	} else {
		fmt.Println("refused:", status.Convert(err).Message())
	}
	os.Exit(0)
}

// TestOtherUserRefused: a front end of another user is refused by its
// peer credentials, even past the file permissions and with the token.
func TestOtherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to run a front end as another user")
	}
	th := startHost(t, -1)
	// Open the file-system layer (the 0700 directory, the 0600 socket)
	// that keeps other users out first, to reach the second one.
	sock := SocketPath(th.state)
	for _, p := range []string{filepath.Dir(th.state), th.state, RuntimeDir(th.state)} {
		os.Chmod(p, 0o711)
	}
	os.Chmod(sock, 0o666)
	bin := filepath.Join(t.TempDir(), "hostd.test")
	exe, _ := os.Executable()
	b, err := os.ReadFile(exe)
	if err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Dir(bin), 0o755)
	os.Chmod(filepath.Dir(filepath.Dir(bin)), 0o755)
	token, _ := runtime.ReadSocketToken(sock)
	cmd := exec.Command(bin)
	cmd.Env = []string{"HOSTD_TEST_OTHER_USER_DIAL=" + sock, "HOSTD_TEST_TOKEN=" + token}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "refused: the host socket answers only its own user") {
		t.Fatalf("the other user's front end: %s", out)
	}
}

// tokenCreds sends a token with every call, as hostclient's front end does.
type tokenCreds string

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{hostv1.TokenMetadata: string(t)}, nil
}
func (tokenCreds) RequireTransportSecurity() bool { return false }
