package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// benchVerify: git diffgate verify with signatures required, over 1,000
// signed and approved commits, against git log --format=%G? over the same range
// with the same allowed-signers file (goal ≤ 1.5×): both run ssh-keygen once a
// commit, which is most of the time.
func benchVerify(r *runner) error {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		fmt.Println("verify   skipped: ssh-keygen is not installed")
		return nil
	}
	dir := filepath.Join(r.work, "verify")
	key := filepath.Join(r.work, "signer")
	if _, err := r.sh(r.work, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key, "-C", "bench"); err != nil {
		return err
	}
	pub, err := readFile(key + ".pub")
	if err != nil {
		return err
	}
	files := map[string]string{
		".allowed_signers": "bench@example.com " + strings.TrimSpace(pub) + "\n",
		".git-tdd.toml":    "[diffgate]\nallowed_signers = \".allowed_signers\"\n",
	}
	if err := writeTree(dir, files); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "gpg.format", "ssh"}, {"config", "user.signingkey", key},
		{"add", "-A"}, {"commit", "-qm", "base"}} {
		if _, err := r.sh(dir, nil, "git", args...); err != nil {
			return err
		}
	}
	base, err := r.sh(dir, nil, "git", "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	head, tree := strings.TrimSpace(string(base)), ""
	if out, err := r.sh(dir, nil, "git", "rev-parse", "HEAD^{tree}"); err == nil {
		tree = strings.TrimSpace(string(out))
	}
	msg := fmt.Sprintf("step\n\nDiffgate-Approved: 2026-01-01T00:00:00Z tree=%s\n", tree)
	for i := 0; i < 1000; i++ {
		out, err := r.sh(dir, bytes.NewReader([]byte(msg)), "git", "commit-tree", "-S", tree, "-p", head, "-F", "-")
		if err != nil {
			return err
		}
		head = strings.TrimSpace(string(out))
	}
	if _, err := r.sh(dir, nil, "git", "update-ref", "refs/heads/main", head); err != nil {
		return err
	}
	rng := strings.TrimSpace(string(base)) + "..main"
	t, err := r.measure(dir, [][]string{
		{"git", "-c", "gpg.ssh.allowedSignersFile=" + filepath.Join(dir, ".allowed_signers"), "log", "--format=%G?", rng},
		{"git", "diffgate", "verify", rng},
	}, 0)
	if err != nil {
		return err
	}
	git, verify := t[0].median(), t[1].median()
	ratio := float64(verify) / float64(git)
	fmt.Printf("verify   1,000 signed commits: git log --format=%%G? %v, git diffgate verify %v: %.2f× (goal ≤ 1.5×) %s\n",
		round(git), round(verify), ratio, verdict(ratio <= 1.5))
	return nil
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}
