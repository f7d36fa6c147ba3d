package gitx

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestConversionsAsGitChecksOut: Conversions and MayConvert miss no checkout
// that differs from its blob, with git's own checkout as the oracle, for
// every mix of text, crlf and eol (set, unset, auto, input, through a macro,
// overridden by a later line, after a negated pattern git ignores), under
// every core.autocrlf and core.eol, for blobs with LF, CRLF and mixed line
// endings, a NUL, and no final newline.
func TestConversionsAsGitChecksOut(t *testing.T) {
	texts := []string{"", "text", "-text", "text=auto", "!text", "text=input", "binary", "m-crlf", "m-binary"}
	crlfs := []string{"", "crlf", "-crlf", "crlf=input"}
	eols := []string{"", "eol=lf", "eol=crlf", "eol=CRLF"}
	blobs := []string{"a\nb\n", "a\r\nb\r\n", "a\r\nb\n", "a\x00b\n", "a\nb"}
	var attrs strings.Builder
	attrs.WriteString("[attr]m-crlf text eol=crlf\n[attr]m-binary -text\n")
	set := map[string]string{} // a file's stem: what its lines say
	n := 0
	for _, tx := range texts {
		for _, cr := range crlfs {
			for _, eol := range eols {
				n++
				stem := fmt.Sprintf("f%03d", n)
				set[stem] = strings.TrimSpace(strings.Join([]string{tx, cr, eol}, " "))
				fmt.Fprintf(&attrs, "%s-* %s\n", stem, set[stem])
			}
		}
	}
	for stem, lines := range map[string]string{
		"o1": "o1-* eol=crlf\no1-* -text\n",
		"o2": "o2-* -text\no2-* text eol=crlf\n",
		"o3": "o3-* eol=crlf\no3-* m-binary\n",
		"o4": "o4-* m-binary\no4-* m-crlf\n",
		"o5": "o5-* eol=crlf\n!o5-*\n",
		"o6": "o6-* binary\no6-* text\n",
	} {
		attrs.WriteString(lines)
		set[stem] = strings.ReplaceAll(strings.TrimSpace(lines), "\n", " | ")
	}
	var paths []string
	for stem := range set {
		for i := range blobs {
			paths = append(paths, fmt.Sprintf("%s-%d.txt", stem, i))
		}
	}
	sort.Strings(paths)
	r := newTestRepo(t)
	r.write(".gitattributes", attrs.String())
	for _, p := range paths {
		var i int
		fmt.Sscanf(p[strings.IndexByte(p, '-')+1:], "%d", &i)
		r.write(p, blobs[i])
	}
	// committed without conversion: the blobs are as written
	r.git("-c", "core.autocrlf=false", "add", "-A")
	r.git("-c", "core.autocrlf=false", "commit", "-q", "-m", "base")
	tree := r.git("ls-tree", "-r", "-z", "--full-tree", "HEAD")
	for _, autocrlf := range []string{"", "false", "true", "input"} {
		for _, eol := range []string{"", "lf", "crlf", "native"} {
			t.Run(fmt.Sprintf("autocrlf=%s,eol=%s", autocrlf, eol), func(t *testing.T) {
				for k, v := range map[string]string{"core.autocrlf": autocrlf, "core.eol": eol} {
					args := []string{"-C", r.dir, "config", k, v}
					if v == "" {
						args = []string{"-C", r.dir, "config", "--unset-all", k} // exit 5 when it is not set
					}
					if out, err := exec.Command("git", args...).CombinedOutput(); err != nil && v != "" {
						t.Fatalf("git config: %v %s", err, out)
					}
				}
				ctx := context.Background()
				repo, err := Open(ctx, r.dir)
				if err != nil {
					t.Fatal(err)
				}
				cfg, err := repo.ConvertConfig(ctx)
				if err != nil {
					t.Fatal(err)
				}
				listed := ParseLsTreeList(t, tree)
				co, err := repo.NewCheckouts(ctx, listed, cfg.AttributesFile)
				if err != nil {
					t.Fatal(err)
				}
				defer co.Close()
				got, err := co.Files(ctx, paths, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				all, err := co.Attrs(ctx, paths)
				if err != nil {
					t.Fatal(err)
				}
				data, err := os.ReadFile(filepath.Join(r.dir, ".gitattributes"))
				if err != nil {
					t.Fatal(err)
				}
				may := cfg.WritesCRLF() || MayConvert(data)
				differ := 0
				for _, p := range paths {
					c := got[p]
					if c.Err != "" {
						t.Fatalf("%s: %s", p, c.Err)
					}
					if c.Same {
						continue
					}
					differ++
					if len(Conversions(all[p], cfg)) == 0 || !may {
						t.Errorf("%s (%s): the checkout is %q, Conversions says %q, MayConvert %v", p, set[p[:strings.IndexByte(p, '-')]], c.Data, Conversions(all[p], cfg), may)
					}
				}
				if differ < 20 { // eol=crlf converts whatever the configuration
					t.Errorf("only %d checkouts differ from their blobs", differ)
				}
			})
		}
	}
}
