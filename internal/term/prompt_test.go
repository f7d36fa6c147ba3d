package term

import (
	"errors"
	"testing"
)

func TestOpenTTYRefusesUnderGitsPager(t *testing.T) {
	getenv := func(k string) string {
		if k == "GIT_PAGER_IN_USE" {
			return "true"
		}
		return ""
	}
	if tty, err := OpenTTY("never", getenv, ""); !errors.Is(err, ErrPagedByGit) {
		if tty != nil {
			tty.Close()
		}
		t.Fatalf("under git's pager: %v, want ErrPagedByGit", err)
	}
}
