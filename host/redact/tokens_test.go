package redact

import (
	"strings"
	"testing"
)

// The samples are fakes in the real formats (several are the vendors' own
// documentation examples); each near miss differs in one way that matters.
func TestTokenTable(t *testing.T) {
	for _, tc := range []struct {
		kind, sample, nearMiss string
	}{
		{"aws_access_key_id", "AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPL"},
		{"aws_access_key_id", "ASIAY34FZKBOKMUTVV7A", "asiay34fzkbokmutvv7a"},
		{"aws_secret_access_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
		{"github_token", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F292c6912E7710c838347Ae17"},
		{"github_token", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "ghx_16C7e42F292c6912E7710c838347Ae178B4a"},
		{"github_token", "ghs_16C7e42F292c6912E7710c838347Ae178B4a", "my_ghs_16C7e42F292c6912E7710c838347Ae178B4a"},
		// Every anchor of the table is a row: a mutation run dropped ghu_,
		// ghr_ and the AWS key-id prefixes other than AKIA/ASIA unnoticed.
		{"github_token", "ghu_16C7e42F292c6912E7710c838347Ae178B4a", "ghu_16C7e42F29"},
		{"github_token", "ghr_16C7e42F292c6912E7710c838347Ae178B4a", "ghr_16C7e42F29"},
		{"aws_access_key_id", "AGPAIOSFODNN7EXAMPLE", "AGPAIOSFODNN7EXAMPL"},
		{"aws_access_key_id", "AIDAIOSFODNN7EXAMPLE", "AIDAIOSFODNN7EXAMPL"},
		{"aws_access_key_id", "AROAIOSFODNN7EXAMPLE", "AROAIOSFODNN7EXAMPL"},
		{"aws_access_key_id", "ANPAIOSFODNN7EXAMPLE", "ANPAIOSFODNN7EXAMPL"},
		{"aws_access_key_id", "ANVAIOSFODNN7EXAMPLE", "ANVAIOSFODNN7EXAMPL"},
		{"aws_access_key_id", "APKAIOSFODNN7EXAMPLE", "APKAIOSFODNN7EXAMPL"},
		{"github_token", "github_pat_11ABCDEFG0123456789abc_0123456789abcdefghijABCDEFGHIJ0123456789abcdefghijABCDEFGHI",
			"github_pat_11ABCDEFG0123456789abc"},
		{"gitlab_token", "glpat-xYz123ABCdef456GHIjk", "glpat-short"},
		{"slack_token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxz-123456789012-1234567890123-AbCdEf"},
		{"slack_webhook", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
			"https://hooks.slack.com/services/"},
		{"openai_api_key", "sk-proj-Ab3dEf6hIj9kLmN0pQr5tUv8wXyZ1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2",
			"sk-learn-model-configuration-files-for-the-project"},
		{"openai_api_key", "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", "task-Ab3dEf6hIj9kLmN0pQr5T3BlbkFJtUv8wXyZ1aB2cD3eF4gH"},
		{"anthropic_api_key", "sk-ant-api03-Ab3dEf6hIj9kLmN0pQr5tUv8wXyZ1aB2cD3eF4gH5iJ6kL7mN8oP9qR0sT1uV2-AAAA",
			"sk-ant-docs"},
		{"google_api_key", "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "AIzaSyA1b2C3"},
		{"stripe_key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39Hq"},
		{"stripe_key", "rk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_fake_4eC39HqLyjWDarjtT1zdp7dc"},
		{"stripe_key", "pk_live_4eC39HqLyjWDarjtT1zdp7dc", "pk_test_4eC39HqLyjWDarjtT1zdp7dc"},
		{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"},
		{"private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
			"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----"},
		{"private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7 (output truncated)", "BEGIN RSA PRIVATE KEY"},
		{"npm_token", "npm_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ", "npm_install_dependencies_for_project_x"},
		{"pypi_token", "pypi-AgEIcHlwaS5vcmcCJGE4ZjM1YTU2LWZhYmQtNDk2Ny1hNjE0LTk5ZjRkNDM5NTAwNwACKlszLCJlZmQ",
			"pypi-package-index-mirror"},
		{"twilio_api_key", "SK0123456789abcdef0123456789abcdef", "SK0123456789ABCDEFG123456789abcdef"},
		{"twilio_auth_token", "TWILIO_AUTH_TOKEN=0123456789abcdef0123456789abcdef", "0123456789abcdef0123456789abcdef"},
		{"sendgrid_api_key", "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",
			"SG.ngeVfQFYQlKU0ufo8x5d1A"},
		{"huggingface_token", "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "hf_transfer"},
		{"bearer_token", "Authorization: Bearer mF_9.B5f-4.1JqM/abcdefghij==", "the bearer of good news"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			in := "before " + tc.sample + " after"
			got := applyTokens(in)
			if !strings.Contains(got, "<redacted:"+tc.kind+">") {
				t.Fatalf("%q not redacted as %s: %q", tc.sample, tc.kind, got)
			}
			if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") && tc.kind != "private_key" {
				t.Fatalf("redaction spilled over its match: %q", got)
			}
			miss := "before " + tc.nearMiss + " after"
			if got := applyTokens(miss); got != miss {
				t.Fatalf("near miss %q was changed: %q", tc.nearMiss, got)
			}
		})
	}
}

func TestTokenTableLeavesOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"func main() { fmt.Println(\"hello\") }",
		"The task-runner uses sk-learn; see risk-assessment-for-the-new-project-plan.md",
		"SELECT * FROM users WHERE id = 42",
		"<redacted:github_token> and <redacted:password>",
	} {
		if got := applyTokens(s); got != s {
			t.Errorf("applyTokens(%q) = %q", s, got)
		}
	}
}

func TestPrivateKeyBlockBounds(t *testing.T) {
	in := "key:\n-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----\nnext line\n" +
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg...cut"
	want := "key:\n<redacted:private_key>\nnext line\n<redacted:private_key>"
	if got := applyTokens(in); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestTableFitsCandidateSet(t *testing.T) {
	if len(tokenTable) > 64 {
		t.Fatalf("%d table entries; candidates tracks at most 64", len(tokenTable))
	}
}
