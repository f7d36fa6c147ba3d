package symbols

import "testing"

func TestPythonDefinitions(t *testing.T) {
	checkDefinitions(t, Python, []extraction{
		{"module level", "import os\n\ndef load(path):\n    return open(path)\n\nasync def fetch():\n    pass\n\nclass Cache:\n    pass\n",
			"def load\ndef fetch\nclass Cache"},
		{"decorators do not hide what they decorate", "@functools.cache\n@other(\n    1)\ndef f():\n    pass\n\n@dataclass\nclass C:\n    x: int\n",
			"def f\nclass C"},
		{"methods and nested classes", "class Outer:\n    def m(self):\n        pass\n\n    class Inner:\n        async def n(self):\n            pass\n\n        @property\n        def p(self):\n            return 1\n\n    x = 1\n",
			"class Outer\ndef Outer.m in Outer\nclass Outer.Inner in Outer\ndef Outer.Inner.n in Outer.Inner\ndef Outer.Inner.p in Outer.Inner"},
		{"functions inside functions are the function's business", "def outer():\n    def helper():\n        pass\n    class Local:\n        def m(self):\n            pass\n    return helper\n\ndef after():\n    pass\n",
			"def outer\ndef after"},
		{"overloaded names are all listed", "from typing import overload\n\n@overload\ndef f(x: int) -> int: ...\n@overload\ndef f(x: str) -> str: ...\ndef f(x):\n    return x\n\nclass P:\n    @property\n    def v(self):\n        return 1\n    @v.setter\n    def v(self, x):\n        pass\n",
			"def f\ndef f\ndef f\nclass P\ndef P.v in P\ndef P.v in P"},
		{"definitions under if and try at module level count", "try:\n    import fast\nexcept ImportError:\n    def fast():\n        pass\nif TYPE_CHECKING:\n    class T:\n        pass\n",
			"def fast\nclass T"},
		{"one-line definitions", "def f(): return 1\nclass E(Exception): pass\n", "def f\nclass E"},
		{"what a string holds is not a definition", "s = \"\"\"\ndef hidden():\n    pass\n\"\"\"\nx = [\n    1,\n]\n", ""},
		{"tabs indent", "class A:\n\tdef m(self):\n\t\tpass\n", "class A\ndef A.m in A"},
		{"CRLF line ends", "def f():\r\n    pass\r\nclass C:\r\n    def m(self):\r\n        pass\r\n", "def f\nclass C\ndef C.m in C"},
		{"empty file", "", ""},
	})
}

func TestPythonThatDoesNotParse(t *testing.T) {
	checkUnparsable(t, Python, []string{
		"def f(:\n    pass\n",
		"s = '''never closed\ndef f():\n    pass\n",
		"x = (1,\n",
		"class A:\n        def m(self):\n            pass\n    def n(self):\n        pass\n",
		"x = )\n",
	})
}

func TestPythonBodies(t *testing.T) {
	src := `def load_state(path):
    # read it
    with open(path) as f:
        return json.load(f)


def read_state(path):
    with open(path) as f:  # the same
        return json.load(f)


def other(path):
    with open(path) as f:
        return yaml.load(f)


class Cache:
    def get(self, k):
        return self.d[k]


class Store:
    def get(self, k):
        return self.d[k]
`
	body := bodies(t, Python, src)
	if !body("load_state").Equal(body("read_state")) {
		t.Errorf("a body under another name, with other comments, is the same body")
	}
	if body("load_state").Equal(body("other")) {
		t.Errorf("a changed line makes another body")
	}
	if !body("Cache").Equal(body("Store")) || !body("Cache.get").Equal(body("Store.get")) {
		t.Errorf("classes and methods: the same bodies under other names")
	}
	if n := len(body("load_state")); n != 3 {
		t.Errorf("load_state has %d lines: the header and two statements", n)
	}
}
