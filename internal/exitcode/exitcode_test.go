package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, OK},
		{New(Refused, "no"), Refused},
		{fmt.Errorf("wrapped: %w", New(HumanRequired, "tty")), HumanRequired},
		{Silent(Refused), Refused},
		{Wrap(Escalate, errors.New("x")), Escalate},
		{context.Canceled, Interrupted},
		{errors.New("unforeseen"), Usage},
	}
	for _, tt := range tests {
		if got := Of(tt.err); got != tt.want {
			t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
	if Wrap(Usage, nil) != nil {
		t.Error("Wrap(nil) must stay nil")
	}
	if !IsSilent(Silent(1)) || IsSilent(New(1, "x")) {
		t.Error("IsSilent")
	}
	d, h := Lines(New(3, "x").WithDetail("a", "b").WithHint("run %s", "y"))
	if len(d) != 2 || h != "run y" {
		t.Errorf("Lines: %v %q", d, h)
	}
}
