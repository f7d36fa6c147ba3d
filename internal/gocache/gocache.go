// Package gocache is the Go build cache of a confined test run: a
// GOCACHEPROG (the go command's cache protocol, Go 1.24 and later) that reads
// the user's own GOCACHE and writes what the run builds into a directory of
// the run's own, removed with it.
//
// Why. go test needs a writable build cache, and the go command trusts what
// it finds there: an entry is a file named by the hash of a build's inputs,
// whose content is not checked again. A run that could write the user's cache
// could put its own code under the name of a package a later run builds (the
// standard library, the code under test at another commit: merge's
// re-proof). A cache of the run's own is safe but empty: go test then
// compiles the standard library again, about ten seconds a run. So the
// user's cache is a read-only layer (the sandbox does not let the run write
// it) under the run's own: hits come from either, new entries go to the
// run's. The program runs inside the sandbox with the tests' rights, so it
// needs no trust: whatever answers go's requests can only write where the
// tests could.
//
// Both layers use the go command's own disk layout
// (<dir>/<2 hex>/<action id hex>-a for an entry, <output id hex>-d for its
// content), so the user's cache is read as go itself writes it.
package gocache

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Command is the hidden command git-tdd serves the cache as:
// git-tdd __gocache BASE OWN.
const Command = "__gocache"

// request and response are the go command's cmd/go/internal/cacheprog types.
type request struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	BodySize int64  `json:",omitempty"`
}

type response struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// Main serves the cache on standard input and output: args are BASE, the
// read-only layer ("" for none), and OWN, the run's writable directory.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 2 || !filepath.IsAbs(args[1]) || args[0] != "" && !filepath.IsAbs(args[0]) {
		fmt.Fprintln(stderr, "git-tdd: error: usage: git-tdd "+Command+" BASE OWN (absolute paths; the go command runs it as GOCACHEPROG)")
		return 2
	}
	if err := Serve(Layers{Base: args[0], Own: args[1]}, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "git-tdd: error: go build cache: %v\n", err)
		return 1
	}
	return 0
}

// Layers are the cache's two directories.
type Layers struct {
	Base string // read only: the user's GOCACHE; "" for none
	Own  string // the run's: new entries go here
}

// Serve answers the go command's requests until it closes the cache.
func Serve(l Layers, in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReaderSize(in, 64<<10))
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw)
	send := func(r response) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := send(response{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var body []byte
		if req.Command == "put" && req.BodySize > 0 {
			if err := dec.Decode(&body); err != nil {
				return fmt.Errorf("reading the body of request %d: %w", req.ID, err)
			}
		}
		res := response{ID: req.ID}
		var err error
		switch req.Command {
		case "get":
			res, err = l.get(req)
		case "put":
			res, err = l.put(req, body)
		case "close":
			return send(res)
		default:
			err = fmt.Errorf("unknown command %q", req.Command)
		}
		if err != nil {
			res = response{ID: req.ID, Err: err.Error()}
		}
		if err := send(res); err != nil {
			return err
		}
	}
}

// entrySize is the size of an entry: "v1 <action hex> <output hex> <size,
// 20 wide> <unix nanoseconds, 20 wide>\n".
const entrySize = 2 + 1 + 64 + 1 + 64 + 1 + 20 + 1 + 20 + 1

func (l Layers) get(req request) (response, error) {
	if len(req.ActionID) != 32 {
		return response{}, errors.New("an action id is 32 bytes")
	}
	for _, dir := range []string{l.Own, l.Base} {
		if dir == "" {
			continue
		}
		if res, ok := lookup(dir, req.ActionID); ok {
			res.ID = req.ID
			return res, nil
		}
	}
	return response{ID: req.ID, Miss: true}, nil
}

// lookup finds an entry in dir as the go command wrote it, and its content,
// of the size the entry says; anything else is a miss.
func lookup(dir string, action []byte) (response, bool) {
	name := hex.EncodeToString(action)
	entry, err := os.ReadFile(filepath.Join(dir, name[:2], name+"-a"))
	if err != nil || len(entry) != entrySize || !bytes.HasPrefix(entry, []byte("v1 "+name+" ")) || entry[entrySize-1] != '\n' {
		return response{}, false
	}
	fields := strings.Fields(string(entry[3+64:]))
	if len(fields) != 3 {
		return response{}, false
	}
	output, err := hex.DecodeString(fields[0])
	size, serr := strconv.ParseInt(fields[1], 10, 64)
	nanos, terr := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || len(output) != 32 || serr != nil || terr != nil || size < 0 {
		return response{}, false
	}
	path := outputPath(dir, output)
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != size {
		return response{}, false
	}
	t := time.Unix(0, nanos)
	return response{OutputID: output, Size: size, Time: &t, DiskPath: path}, true
}

func outputPath(dir string, output []byte) string {
	name := hex.EncodeToString(output)
	return filepath.Join(dir, name[:2], name+"-d")
}

func (l Layers) put(req request, body []byte) (response, error) {
	if len(req.ActionID) != 32 || len(req.OutputID) != 32 {
		return response{}, errors.New("an action id and an output id are 32 bytes")
	}
	if int64(len(body)) != req.BodySize {
		return response{}, fmt.Errorf("the body has %d bytes, not %d", len(body), req.BodySize)
	}
	path := outputPath(l.Own, req.OutputID)
	if err := writeFile(path, body); err != nil {
		return response{}, err
	}
	name := hex.EncodeToString(req.ActionID)
	entry := fmt.Sprintf("v1 %s %x %20d %20d\n", name, req.OutputID, len(body), time.Now().UnixNano())
	if err := writeFile(filepath.Join(l.Own, name[:2], name+"-a"), []byte(entry)); err != nil {
		return response{}, err
	}
	return response{ID: req.ID, DiskPath: path}, nil
}

// writeFile writes whole files only: a reader never sees half of one.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
