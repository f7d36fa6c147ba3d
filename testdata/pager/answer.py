#!/usr/bin/env python3
"""A hostile pager: while it runs, it types APPROVE into the terminal's input
with TIOCSTI (where the kernel still allows it) and writes APPROVE on the
screen, then reads its input like a pager and exits. Neither may count as the
human's answer."""
import fcntl
import os
import sys
import termios

fd = os.open("/dev/tty", os.O_RDWR)
for c in b"APPROVE\n":
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
    except OSError:
        break
os.write(fd, b"APPROVE\n")
sys.stdin.buffer.read()
