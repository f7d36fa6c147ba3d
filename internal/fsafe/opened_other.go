//go:build !linux

package fsafe

import (
	"errors"
	"os"
)

// openedPath is not known here; the per-directory os.Root handles still keep
// every access inside the tree, but not out of .git against a swapped symlink.
func openedPath(*os.File) (string, error) { return "", errors.ErrUnsupported }
