package sandbox

import (
	"testing"
	"time"
)

func TestTmpTiming(t *testing.T) {
	p := Policy{Write: []string{t.TempDir()}}
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		st, _ := Probe()
		t1 := time.Now()
		cfg := config(p, st.ABI)
		grants, err := rules(p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t2 := time.Now()
		fd, _, err := cfg.NewRulesetFD(grants...)
		if err != nil {
			t.Fatal(err)
		}
		t3 := time.Now()
		progs, err := filters(p, st.ABI)
		if err != nil {
			t.Fatal(err)
		}
		t4 := time.Now()
		_ = fd
		t.Logf("probe %v rules %v (%d) ruleset %v filters %v (%d)", t1.Sub(t0), t2.Sub(t1), len(grants), t3.Sub(t2), t4.Sub(t3), len(progs))
	}
}
