package contextcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func setup(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(c), 0o644)
	}
	return root
}

var lim = Limits{MaxFileBytes: 102400, MaxTokens: 200000}

// seed 002 TS-03 and TS-05, and N0's rules, one row each.
func TestRefusals(t *testing.T) {
	key := "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----\n"
	root := setup(t, map[string]string{
		"ok.py": "x = 1\n", ".env": "T=1\n", ".env.local": "T=1\n", "server.pem": "x", "tls.KEY": "x",
		"config/app_secret.yml": "a: 1\n", "id_rsa.pub": "ssh-rsa", "notes.txt": key,
		"aws.cfg": "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n", "gh.txt": "token ghp_" + strings.Repeat("a", 36) + "\n",
		"slack.txt": "xoxb-1234567890-abcdef\n", "big.txt": strings.Repeat("y", 102401), "edge.txt": strings.Repeat("y", 102400),
		"bin.dat": "a\x00b", "dir/x.py": "x\n", "private.cfg": "hunter2\n",
	})
	tests := map[string]string{
		"ok.py": "", "edge.txt": "",
		".env": "secret (.env)", ".env.local": "secret (.env.*)", "server.pem": "*.pem", "tls.KEY": "*.key",
		"config/app_secret.yml": "*secret*", "id_rsa.pub": "id_rsa*", "notes.txt": "a private key",
		"aws.cfg": "AWS access key id", "gh.txt": "GitHub token", "slack.txt": "Slack token",
		"big.txt": "over the limit of 102400 bytes", "bin.dat": "binary", "dir": "is a directory",
		"../outside.py": "outside the repository", ".git/config": "git's own directory", "missing.py": "cannot be read",
		"private.cfg": "secret (private*)",
	}
	for p, want := range tests {
		l := lim
		l.SecretPatterns = []string{"private*"}
		res := Check(root, root, []string{p}, l, nil)
		switch {
		case want == "" && !res.OK():
			t.Errorf("%s refused: %v", p, res.Problems)
		case want != "" && (res.OK() || !strings.Contains(res.Problems[0].Reason, want)):
			t.Errorf("%s: got %v, want %q", p, res.Problems, want)
		}
	}
}

func TestTokenBudget(t *testing.T) {
	root := setup(t, map[string]string{"a.txt": strings.Repeat("w ", 60), "b.txt": strings.Repeat("w ", 60)})
	words := func(s string) int { return len(strings.Fields(s)) }
	res := Check(root, root, []string{"a.txt", "b.txt", "a.txt"}, Limits{MaxFileBytes: 1000, MaxTokens: 100}, words)
	if res.OK() || res.Tokens != 120 || !strings.Contains(res.Problems[0].Reason, "120 tokens, over the budget of 100") {
		t.Errorf("%+v", res.Problems)
	}
	if len(res.Files) != 2 {
		t.Errorf("a path given twice is read once: %d files", len(res.Files))
	}
}
