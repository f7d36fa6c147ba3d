package gocache

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func id(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

// serve runs Serve on requests (each a request, or the body of the put
// before it) and returns the responses after the first.
func serve(t *testing.T, l Layers, lines ...any) []response {
	t.Helper()
	var in bytes.Buffer
	for _, v := range lines {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(append(data, '\n'))
	}
	var out bytes.Buffer
	if err := Serve(l, &in, &out); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var res []response
	for dec.More() {
		var r response
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		res = append(res, r)
	}
	if len(res) == 0 || strings.Join(res[0].KnownCommands, " ") != "get put close" {
		t.Fatalf("no greeting: %+v", res)
	}
	return res[1:]
}

// The user's cache is read, never written: what the run builds goes to its
// own layer, and is found there next.
func TestLayers(t *testing.T) {
	base, own := t.TempDir(), t.TempDir()
	// an entry as the go command writes it, in the base
	os.MkdirAll(filepath.Join(base, "aa"), 0o755)
	os.MkdirAll(filepath.Join(base, "bb"), 0o755)
	os.WriteFile(filepath.Join(base, "bb", strings.Repeat("bb", 32)+"-d"), []byte("std"), 0o644)
	entry := "v1 " + strings.Repeat("aa", 32) + " " + strings.Repeat("bb", 32) + " " + strings.Repeat(" ", 19) + "3 " + strings.Repeat(" ", 10) + "1700000000\n"
	os.WriteFile(filepath.Join(base, "aa", strings.Repeat("aa", 32)+"-a"), []byte(entry), 0o644)
	// one whose content has another size than its entry says: a miss
	os.MkdirAll(filepath.Join(base, "cc"), 0o755)
	bad := strings.Replace(entry, strings.Repeat("aa", 32), strings.Repeat("cc", 32), 1)
	bad = strings.Replace(bad, " 3 ", " 4 ", 1)
	os.WriteFile(filepath.Join(base, "cc", strings.Repeat("cc", 32)+"-a"), []byte(bad), 0o644)

	res := serve(t, Layers{Base: base, Own: own},
		request{ID: 1, Command: "get", ActionID: id(0xaa)},
		request{ID: 2, Command: "get", ActionID: id(0xdd)},
		request{ID: 3, Command: "put", ActionID: id(0xdd), OutputID: id(0xee), BodySize: 4}, []byte("mine"),
		request{ID: 4, Command: "get", ActionID: id(0xdd)},
		request{ID: 5, Command: "put", ActionID: id(0xaa), OutputID: id(0xef), BodySize: 5}, []byte("other"),
		request{ID: 6, Command: "get", ActionID: id(0xaa)},
		request{ID: 7, Command: "put", ActionID: id(1), OutputID: id(2), BodySize: 9}, []byte("short"),
		request{ID: 8, Command: "close"},
	)
	if len(res) != 8 {
		t.Fatalf("got %d responses: %+v", len(res), res)
	}
	if r := res[0]; r.Miss || r.Size != 3 || r.DiskPath != filepath.Join(base, "bb", strings.Repeat("bb", 32)+"-d") {
		t.Errorf("base hit: %+v", r)
	}
	if !res[1].Miss {
		t.Errorf("unknown action: %+v", res[1])
	}
	if r := res[2]; r.Err != "" || !strings.HasPrefix(r.DiskPath, own) {
		t.Errorf("put: %+v", r)
	}
	if r := res[3]; r.Miss || r.Size != 4 || !bytes.Equal(r.OutputID, id(0xee)) || !strings.HasPrefix(r.DiskPath, own) {
		t.Errorf("own hit: %+v", r)
	}
	// the run's own entry shadows the user's, which is unchanged
	if r := res[5]; !bytes.Equal(r.OutputID, id(0xef)) || !strings.HasPrefix(r.DiskPath, own) {
		t.Errorf("own layer first: %+v", r)
	}
	if data, _ := os.ReadFile(filepath.Join(base, "aa", strings.Repeat("aa", 32)+"-a")); string(data) != entry {
		t.Errorf("the base entry changed: %q", data)
	}
	if r := res[6]; r.Err == "" {
		t.Errorf("a body of the wrong size was stored: %+v", r)
	}
	if r := res[7]; r.ID != 8 || r.Err != "" {
		t.Errorf("close: %+v", r)
	}
	// a wrong-sized content is a miss
	res = serve(t, Layers{Base: base, Own: own}, request{ID: 1, Command: "get", ActionID: id(0xcc)})
	if len(res) != 1 || !res[0].Miss {
		t.Errorf("entry whose content has another size: %+v", res)
	}
}

func TestMainUsage(t *testing.T) {
	var stderr bytes.Buffer
	if code := Main([]string{"relative", "/own"}, nil, nil, &stderr); code != 2 || !strings.Contains(stderr.String(), "usage") {
		t.Errorf("exit %d, %q", code, stderr.String())
	}
}
