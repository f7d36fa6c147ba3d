package lifecycle

import "testing"

const pySrc = `import calc
import pytest


def test_real():
    assert calc.mul(2, 3) == 6


def test_assert_false():
    assert False


def test_fail():
    """Not written yet."""
    # TODO
    pytest.fail(
        "write me"
    )


def test_not_implemented():
    raise NotImplementedError("later")


def test_calls_then_fails():
    result = calc.mul(2, 3)
    assert False, result


def test_skip():
    pytest.skip("later")


def test_multiline_real(
    x=1,
):
    assert calc.mul(
        2, 3) == 6  # a comment with assert False


class TestK:
    def test_hollow_method(self):
        assert False

    def test_real_method(self):
        assert calc.mul(1, 1) == 1


@pytest.mark.parametrize("x", [1, 2])
def test_param(x):
    assert 0, "todo"
`

const goSrc = `package calc

import "testing"

func TestReal(t *testing.T) {
	if Mul(2, 3) != 6 {
		t.Fatal("want 6")
	}
}

func TestHollow(t *testing.T) {
	t.Fatal("not yet")
}

func TestSkip(t *testing.T) { t.Skip() }

func TestEmpty(t *testing.T) {}
`

func TestHollow(t *testing.T) {
	tests := map[string]bool{
		"tests/t.py::test_real":                 false,
		"tests/t.py::test_assert_false":         true,
		"tests/t.py::test_fail":                 true,
		"tests/t.py::test_not_implemented":      true,
		"tests/t.py::test_calls_then_fails":     false,
		"tests/t.py::test_skip":                 true,
		"tests/t.py::test_multiline_real":       false,
		"tests/t.py::TestK::test_hollow_method": true,
		"tests/t.py::TestK::test_real_method":   false,
		"tests/t.py::test_hollow_method":        false, // not at the top level
		"tests/t.py::test_param[2]":             true,
		"tests/t.py::test_missing":              false,
		"tests/t.py":                            false,
	}
	for id, want := range tests {
		if got := Hollow("tests/t.py", id, []byte(pySrc)); got != want {
			t.Errorf("%s: hollow = %v, want %v", id, got, want)
		}
	}
	goTests := map[string]bool{"m/calc.TestReal": false, "m/calc.TestHollow": true, "m/calc.TestSkip": true,
		"m/calc.TestEmpty": false, "m/calc.TestHollow/sub": true, "m/calc.TestNone": false}
	for id, want := range goTests {
		if got := Hollow("calc_test.go", id, []byte(goSrc)); got != want {
			t.Errorf("%s: hollow = %v, want %v", id, got, want)
		}
	}
}

func FuzzHollowPython(f *testing.F) {
	f.Add("def test_x():\n    assert False\n")
	f.Fuzz(func(t *testing.T, src string) {
		Hollow("t.py", "t.py::test_x", []byte(src)) // never panics
	})
}
