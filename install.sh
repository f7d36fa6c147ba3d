#!/bin/sh
# Builds git-diffgate and git-tdd and installs them with their man pages and
# their bash, zsh and fish completions, saying what it does as it goes.
#   ./install.sh                 into /usr/local when writable, else ~/.local
#   PREFIX=/opt/git-tdd ./install.sh
# On a terminal it offers to add the bin directory to your PATH; it never
# edits a shell's start-up file without asking, and never when not on one.
set -eu
cd "$(dirname "$0")"

say() { printf '%s\n' "$*"; }
die() { say "install.sh: $*" >&2; exit 1; }
command -v go >/dev/null 2>&1 || die "Go is required to build (https://go.dev/dl/)"
command -v git >/dev/null 2>&1 || die "git is required"

if [ -z "${PREFIX:-}" ]; then
  if [ -w /usr/local/bin ] && [ -w /usr/local/share ]; then PREFIX=/usr/local; else PREFIX=$HOME/.local; fi
fi
version=$(git describe --tags --always --dirty 2>/dev/null || echo devel)
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

say "Building git-diffgate and git-tdd with $(go version | cut -d' ' -f3) (the first build takes a minute)..."
CGO_ENABLED=0 go build -trimpath \
  -ldflags "-X github.com/git-tdd/git-tdd/internal/version.Version=$version -X github.com/git-tdd/git-tdd/internal/version.Commit=$commit" \
  -o "$tmp/" ./cmd/git-diffgate ./cmd/git-tdd
# the version as the binaries say it (git tdd --version), not as git describe does
version=$("$tmp/git-tdd" --version | sed 's/^git tdd //')

say "Installing into $PREFIX:"
put() { # MODE SOURCE DEST: install one file and say where it went
  mkdir -p "$(dirname "$3")"
  install -m "$1" "$2" "$3"
  say "  $3"
}
for cmd in git-diffgate git-tdd; do
  put 0755 "$tmp/$cmd" "$PREFIX/bin/$cmd"
done
for page in man/*.1; do
  [ -e "$page" ] && put 0644 "$page" "$PREFIX/share/man/man1/$(basename "$page")"
done
command -v mandb >/dev/null 2>&1 && mandb -q "$PREFIX/share/man" >/dev/null 2>&1 || true

# Completions where each shell looks for them: bash-completion loads
# share/bash-completion/completions/git-tdd on demand (git's own completion
# asks for it at `git tdd <Tab>`); zsh autoloads _git-tdd from a directory of
# $fpath; fish sources vendor_conf.d at start, which `git tdd <Tab>` needs.
for cmd in git-diffgate git-tdd; do
  "$tmp/$cmd" completion bash > "$tmp/$cmd.bash"
  "$tmp/$cmd" completion zsh > "$tmp/_$cmd"
  "$tmp/$cmd" completion fish > "$tmp/$cmd.fish"
  put 0644 "$tmp/$cmd.bash" "$PREFIX/share/bash-completion/completions/$cmd"
  put 0644 "$tmp/_$cmd" "$PREFIX/share/zsh/site-functions/_$cmd"
  put 0644 "$tmp/$cmd.fish" "$PREFIX/share/fish/vendor_conf.d/$cmd.fish"
done
say "Installed git-diffgate and git-tdd $version."

notes=""
note() { notes="$notes
  $*"; }
case "$PREFIX" in
  /usr/local | /usr | "$HOME/.local") ;;
  *) note "bash: load $PREFIX/share/bash-completion/completions/git-tdd (and git-diffgate) from ~/.bashrc, or put them in ~/.local/share/bash-completion/completions" ;;
esac
case "$PREFIX" in
  /usr/local | /usr) ;;
  *) note "zsh: add  fpath+=($PREFIX/share/zsh/site-functions)  to ~/.zshrc before compinit" ;;
esac
if command -v fish >/dev/null 2>&1 && ! fish -c "contains -- '$PREFIX/share/fish/vendor_conf.d' \$__fish_vendor_confdirs" 2>/dev/null; then
  note "fish: it does not read $PREFIX/share/fish; link the files into ~/.config/fish/conf.d/"
fi
[ -n "$notes" ] && say "For completion:$notes"

case ":$PATH:" in
  *":$PREFIX/bin:"*) exit 0 ;;
esac
shell=$(basename "${SHELL:-sh}")
case "$shell" in
  zsh) rc=$HOME/.zshrc; line="export PATH=\"$PREFIX/bin:\$PATH\"" ;;
  fish) rc=${XDG_CONFIG_HOME:-$HOME/.config}/fish/conf.d/git-tdd-path.fish; line="fish_add_path $PREFIX/bin" ;;
  bash) rc=$HOME/.bashrc; line="export PATH=\"$PREFIX/bin:\$PATH\"" ;;
  *) rc=$HOME/.profile; line="export PATH=\"$PREFIX/bin:\$PATH\"" ;;
esac
say "$PREFIX/bin is not on your PATH, so git cannot find 'git diffgate' and 'git tdd' yet."
# only a person on a terminal answers, never a pipe
if [ -t 0 ] && [ -t 1 ] && { : < /dev/tty; } 2>/dev/null; then
  printf 'Add it to your PATH in %s? [y/N] ' "$rc"
  read -r answer < /dev/tty || answer=""
  case "$answer" in
    y | Y | yes | YES | Yes)
      mkdir -p "$(dirname "$rc")"
      printf '\n# added by git-tdd install.sh\n%s\n' "$line" >> "$rc"
      say "Added to $rc; open a new shell, or run: $line"
      exit 0 ;;
  esac
fi
say "To use them, add this line to $rc:"
say "  $line"
