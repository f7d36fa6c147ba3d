//go:build !linux

package gitx

import "io"

func growPipe(io.Reader) {}
