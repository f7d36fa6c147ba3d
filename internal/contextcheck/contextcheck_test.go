package contextcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/git-tdd/git-tdd/internal/excerpt"
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
		"private.cfg": "secret (private*)", "dir/../ok.py": `goes through ".."`,
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

// Every well-known shape is found, in any position and case the pattern allows;
// the literals that gate each pattern must be in every example it matches.
func TestSecretContent(t *testing.T) {
	examples := map[string]string{
		"-----BEGIN OPENSSH PRIVATE KEY-----\n":                                       "a private key",
		"-----BEGIN ENCRYPTED PRIVATE KEY-----":                                       "a private key",
		"id = 'ASIAABCDEFGHIJKLMNOP'":                                                 "an AWS access key id",
		"AWS_Secret_Access_Key = " + strings.Repeat("a", 40):                          "an AWS secret access key",
		"aws_secret_access_key: \"" + strings.Repeat("Ab/+", 10) + "\"":               "an AWS secret access key",
		"gho_" + strings.Repeat("x", 36):                                              "a GitHub token",
		"github_pat_" + strings.Repeat("A", 22):                                       "a GitHub token",
		"xoxp-0123456789-abc":                                                         "a Slack token",
		"https://hooks.slack.com/services/T0000/B0000/XXXX":                           "a Slack webhook",
		"key=AIza" + strings.Repeat("z", 35):                                          "a Google API key",
		"sk_live_" + strings.Repeat("9", 24):                                          "a Stripe secret key",
		"sk-ant-" + strings.Repeat("k", 40):                                           "an OpenAI or Anthropic key",
		"OPENAI=sk-proj-" + strings.Repeat("k", 40):                                   "an OpenAI or Anthropic key",
		"//registry.npmjs.org/:_authToken=npm_" + strings.Repeat("a", 36):             "an npm token",
		"password = pypi-AgEIcHlwaS5vcmc" + strings.Repeat("B", 60):                   "a PyPI token",
		strings.Repeat("filler line\n", 5000) + "tail ghp_" + strings.Repeat("q", 40): "a GitHub token",
	}
	for in, want := range examples {
		if got := SecretContent([]byte(in)); got != "it contains "+want {
			t.Errorf("%.60q: got %q, want %q", in, got, want)
		}
	}
	for _, clean := range []string{"task-list desk-top", "AKIA is a prefix", "# a PRIVATE KEY is not here", "xoxb-short", "sk_live_short"} {
		if got := SecretContent([]byte(clean)); got != "" {
			t.Errorf("%q: %s", clean, got)
		}
	}
	for _, s := range secretContent() {
		for in := range examples {
			if m := s.re.FindString(in); m != "" {
				hay := m
				if s.fold {
					hay = strings.ToLower(m)
				}
				found := false
				for _, n := range s.needles {
					found = found || strings.Contains(hay, n)
				}
				if !found {
					t.Errorf("%s matched %q, which has none of %q", s.what, m, s.needles)
				}
			}
		}
	}
}

// Files are checked in parallel, but the bundle and the problems keep the
// order the paths were given in.
func TestOrderKept(t *testing.T) {
	files := map[string]string{}
	var paths []string
	for i := 0; i < 64; i++ {
		p := filepath.Join("d", strings.Repeat("x", i%5)+string(rune('a'+i%26))+strings.Repeat("y", i)+".txt")
		files[p] = strings.Repeat("w ", i)
		if i%9 == 0 {
			files[p] = "-----BEGIN PRIVATE KEY-----"
		}
		paths = append(paths, p)
	}
	root := setup(t, files)
	res := Check(root, root, paths, lim, func(s string) int { return len(strings.Fields(s)) })
	var got []string
	for _, f := range res.Files {
		got = append(got, f.Path)
	}
	for _, p := range res.Problems {
		got = append(got, p.Path)
	}
	var want []string
	for i, p := range paths {
		if i%9 != 0 {
			want = append(want, p)
		}
	}
	for i, p := range paths {
		if i%9 == 0 {
			want = append(want, p)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("order:\n got %v\nwant %v", got, want)
	}
}

// A symlink that leads out of the repository is refused, and what it points to is not read.
func TestSymlinkOut(t *testing.T) {
	root := setup(t, map[string]string{"ok.py": "x\n"})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "s.txt"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(outside, "s.txt"), filepath.Join(root, "link.txt"))
	res := Check(root, root, []string{"link.txt"}, lim, nil)
	if res.OK() || !strings.Contains(res.Problems[0].Reason, "symlink") {
		t.Errorf("%+v", res)
	}
}

func TestRedact(t *testing.T) {
	in := "E   AssertionError: STRIPE_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc\nkey AKIAIOSFODNN7EXAMPLE and aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY1\nplain text\n"
	got := Redact(in)
	for _, secret := range []string{"sk_live_4eC39", "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI"} {
		if strings.Contains(got, secret) {
			t.Errorf("Redact left %q in %q", secret, got)
		}
	}
	if !strings.Contains(got, "[redacted: a Stripe secret key]") || !strings.Contains(got, "plain text") {
		t.Errorf("Redact = %q", got)
	}
	if Redact("nothing here") != "nothing here" {
		t.Error("Redact changed text without secrets")
	}
}

// Fit sends a large Python or Go file in part, within the limit; what is not
// source, or holds a secret anywhere, is refused as by Check.
func TestFitLarge(t *testing.T) {
	var big strings.Builder
	for i := range 500 {
		big.WriteString("def f" + strings.Repeat("x", i%7) + "_" + string(rune('a'+i%26)) + "(y):\n    \"\"\"" + strings.Repeat("doc ", 40) + "\"\"\"\n    return y\n\n\n")
	}
	big.WriteString("def wanted(y):\n    return y + 1\n")
	root := setup(t, map[string]string{"big.py": big.String(), "big.txt": strings.Repeat("y\n", 60000),
		"leak.py": big.String() + "K = 'ghp_" + strings.Repeat("a", 36) + "'\n", "small.py": "x = 1\n"})
	tests := []struct{ path, sent, why string }{
		{"small.py", "whole", ""},
		{"big.py", "outline + 1 definition", ""},
		{"big.txt", "", "only Python and Go files can be sent in part"},
		{"leak.py", "", "a GitHub token"},
	}
	for _, tt := range tests {
		res := Fit(root, root, []string{tt.path}, Limits{MaxFileBytes: 40000, MaxTokens: 200000}, nil, excerpt.Want{Names: map[string]bool{"wanted": true}})
		switch {
		case tt.why != "" && (res.OK() || !strings.Contains(res.Problems[0].Reason, tt.why)):
			t.Errorf("%s: %v, want %q", tt.path, res.Problems, tt.why)
		case tt.why == "" && !res.OK():
			t.Errorf("%s refused: %v", tt.path, res.Problems)
		case tt.why == "" && (res.Files[0].Sent != tt.sent || res.Files[0].Bytes > 40000 || !strings.Contains(res.Files[0].Content, "def wanted(y):\n    return y + 1") && tt.path == "big.py"):
			t.Errorf("%s: sent %q, %d bytes", tt.path, res.Files[0].Sent, res.Files[0].Bytes)
		}
	}
	if res := Check(root, root, []string{"big.py"}, Limits{MaxFileBytes: 40000, MaxTokens: 200000}, nil); res.OK() {
		t.Error("Check sends a large file")
	}
}

// A file sent whole is held once: its content is its source (200 files of
// 50 KB held twice were 10 MB of a 64 MB budget, DESIGN §9).
func TestWholeFileHeldOnce(t *testing.T) {
	f, why := Accept("a.py", []byte(strings.Repeat("x = 1\n", 100)), 1<<20, nil)
	if why != "" {
		t.Fatal(why)
	}
	if unsafe.StringData(f.Content) != unsafe.StringData(f.Source) {
		t.Error("the content sent is a second copy of the source")
	}
}
