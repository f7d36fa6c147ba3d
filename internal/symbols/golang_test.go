package symbols

import "testing"

func TestGoDefinitions(t *testing.T) {
	checkDefinitions(t, Go, []extraction{
		{"functions and types", "package p\n\nfunc Load() error { return nil }\n\ntype Cache struct{ m map[string]int }\n\ntype (\n\tA int\n\tB = A\n)\n",
			"func Load\ntype Cache\ntype A\ntype B"},
		{"methods on pointer and value receivers", "package p\n\ntype C struct{}\n\nfunc (c *C) Get() int { return 1 }\n\nfunc (C) Put() {}\n\nfunc (c *(C)) Paren() {}\n",
			"type C\nmethod C.Get\nmethod C.Put\nmethod C.Paren"},
		{"generic receivers", "package p\n\ntype M[K comparable, V any] map[K]V\n\nfunc (m M[K, V]) Len() int { return len(m) }\n\ntype L[T any] []T\n\nfunc (l *L[T]) Push(v T) {}\n",
			"type M\nmethod M.Len\ntype L\nmethod L.Push"},
		{"var and const blocks by name", "package p\n\nvar (\n\tErrGone = errors.New(\"gone\")\n\ta, b = 1, 2\n\t_ = 3\n)\n\nconst N = 10\n\nconst (\n\tX = iota\n\tY\n)\n",
			"var ErrGone\nvar a\nvar b\nconst N\nconst X\nconst Y"},
		{"init can repeat; blank names are none", "package p\n\nfunc init() {}\n\nfunc init() {}\n\nfunc _() {}\n\nvar _ = 1\n",
			"func init\nfunc init"},
		{"what is local to a function is not listed", "package p\n\nfunc F() {\n\ttype local int\n\tvar x local\n\t_ = x\n}\n", "func F"},
		{"a comment is not a definition", "package p\n\n/*\nfunc Hidden() {}\n*/\n\n// func Gone() {}\n", ""},
	})
}

func TestGoThatDoesNotParse(t *testing.T) {
	checkUnparsable(t, Go, []string{
		"package p\n\nfunc F( {}\n",
		"func F() {}\n",
		"package p\n\nvar _ = []int{\nfunc F() {}\n}\n",
		"package p\n\n/* never closed\nfunc F() {}\n",
		"package p\n\nfunc F() {}\n\nimport \"fmt\"\n",
	})
}

func TestGoBodies(t *testing.T) {
	src := `package p

// Load reads it.
func Load(path string) (*State, error) {
	data, err := os.ReadFile(path) // read
	if err != nil {
		return nil, err
	}
	return decode(data)
}

func Read(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil { return nil, err }
	return decode(data)
}

func Reread(path string) (*State, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeOther(data)
}

func (c *Cache) Get(k string) int { return c.m[k] }

func (c *Cache) Fetch(k string) int { return c.m[k] }
`
	body := bodies(t, Go, src)
	if !body("Load").Equal(body("Read")) {
		t.Errorf("the same tokens under another name, comments and line breaks aside, are the same body:\n%v\n%v", body("Load"), body("Read"))
	}
	if body("Load").Equal(body("Reread")) {
		t.Errorf("a changed line makes another body")
	}
	if !body("Cache.Get").Equal(body("Cache.Fetch")) {
		t.Errorf("a method renamed keeps its body")
	}
}
