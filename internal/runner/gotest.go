package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
)

// goEvent is one line of go test -json (cmd/test2json).
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
}

// goOutput is the text a go test -json line carries, to show while it runs; a
// line that is not an event (a build error, say) is shown as it is.
func goOutput(line []byte) []byte {
	var e goEvent
	if json.Unmarshal(line, &e) != nil {
		return line
	}
	if e.Action == "output" || e.Action == "build-output" {
		return []byte(e.Output)
	}
	return nil
}

// goResults reads the events into tests and an exit code in pytest's terms.
func goResults(events *bytes.Buffer, raw int) ([]Test, int) {
	var tests []Test
	index := map[string]int{}
	output := map[string]*strings.Builder{}
	buildFailed := false
	sc := bufio.NewScanner(events)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e goEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "build-fail" || e.FailedBuild != "" {
			buildFailed = true
		}
		if e.Test == "" {
			continue
		}
		id := e.Package + "." + e.Test
		if e.Action == "output" {
			if output[id] == nil {
				output[id] = &strings.Builder{}
			}
			if output[id].Len() < 2000 {
				output[id].WriteString(e.Output)
			}
			continue
		}
		var o Outcome
		switch e.Action {
		case "pass":
			o = Passed
		case "fail":
			o = Failed
		case "skip":
			o = Skipped
		default:
			continue
		}
		if i, ok := index[id]; ok {
			tests[i].Outcome = o
			continue
		}
		index[id] = len(tests)
		tests = append(tests, Test{ID: id, Outcome: o})
	}
	for i := range tests {
		if b := output[tests[i].ID]; b != nil && tests[i].Outcome == Failed {
			tests[i].Message = strings.TrimSpace(b.String())
		}
	}
	switch {
	case buildFailed || (raw != 0 && len(tests) == 0 && raw != -1):
		return tests, 2
	case raw < 0:
		return tests, -1
	case len(tests) == 0:
		return tests, 5
	case raw == 0:
		return tests, 0
	}
	return tests, 1
}
