#!/bin/sh
# Builds git-diffgate and git-tdd and installs them with their man pages.
#   ./install.sh                 into /usr/local when writable, else ~/.local
#   PREFIX=/opt/git-tdd ./install.sh
set -eu
cd "$(dirname "$0")"

die() { echo "install.sh: $*" >&2; exit 1; }
command -v go >/dev/null 2>&1 || die "Go is required to build (https://go.dev/dl/)"
command -v git >/dev/null 2>&1 || die "git is required"

if [ -z "${PREFIX:-}" ]; then
  if [ -w /usr/local/bin ] && [ -w /usr/local/share ]; then PREFIX=/usr/local; else PREFIX=$HOME/.local; fi
fi
version=$(git describe --tags --always --dirty 2>/dev/null || echo devel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -trimpath -ldflags "-X github.com/git-tdd/git-tdd/internal/version.Version=$version" \
  -o "$tmp/" ./cmd/git-diffgate ./cmd/git-tdd

mkdir -p "$PREFIX/bin" "$PREFIX/share/man/man1"
install -m 0755 "$tmp/git-diffgate" "$tmp/git-tdd" "$PREFIX/bin/"
for page in man/*.1; do
  [ -e "$page" ] && install -m 0644 "$page" "$PREFIX/share/man/man1/"
done
command -v mandb >/dev/null 2>&1 && mandb -q "$PREFIX/share/man" >/dev/null 2>&1 || true

echo "installed git-diffgate and git-tdd $version into $PREFIX/bin"
case ":$PATH:" in
  *":$PREFIX/bin:"*) ;;
  *) echo "note: $PREFIX/bin is not on your PATH; add it so that git finds 'git diffgate' and 'git tdd'" ;;
esac
