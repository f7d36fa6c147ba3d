package runner

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCaptureOutputLimit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		size  int
		limit int64
		err   string
	}{
		{"under", 1000, 1 << 20, ""},
		{"exactly at", 1 << 20, 1 << 20, ""},
		{"over, in one large write", 1100000, 1 << 20, "answered more than 1048576 bytes"},
		{"over a small limit", 100, 10, "answered more than 10 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var received atomic.Int64 // what a progress line is told, over the limit too
			out, err := Capture(ctx, Call{Argv: []string{"head", "-c", strconv.Itoa(tc.size), "/dev/zero"}, Timeout: 10 * time.Second, Limit: tc.limit,
				Received: func(total int64) { received.Store(total) }})
			if got := received.Load(); got != int64(tc.size) {
				t.Errorf("received %d bytes, want %d", got, tc.size)
			}
			if tc.err == "" {
				if err != nil || len(out) != tc.size {
					t.Fatalf("len %d, err %v", len(out), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q (len %d)", err, tc.err, len(out))
			}
		})
	}
}

func TestCaptureTimeoutStopsTheGroup(t *testing.T) {
	start := time.Now()
	_, err := Capture(context.Background(), Call{Argv: []string{"sh", "-c", "sleep 30 & sleep 30"}, Timeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "did not answer within") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
}

// What a called program says on stderr reaches the caller line by line,
// escaped: it cannot clear the screen through it.
func TestCaptureEscapesStderr(t *testing.T) {
	var stderr strings.Builder
	out, err := Capture(context.Background(), Call{Argv: []string{"sh", "-c", `printf 'answer'; printf 'one\033[2J\r\ntwo' >&2`},
		Timeout: 10 * time.Second, Stderr: &stderr})
	if err != nil || string(out) != "answer" {
		t.Fatalf("%q, %v", out, err)
	}
	if got, want := stderr.String(), "one^[[2J\ntwo\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
