#!/bin/sh
# git-diffgate @HOOK@ hook. diffgate-shim v1
# Written by 'git diffgate install'; 'git diffgate uninstall' removes it and puts
# back the hook that was here before, which is kept as @HOOK@.pre-diffgate and
# runs first.
hook=@HOOK@
dir=${0%/*}
diffgate=$(command -v git-diffgate 2>/dev/null) || diffgate=@EXE@
if [ ! -x "$diffgate" ]; then
	echo "git-diffgate: error: the $hook hook cannot find git-diffgate, so it refuses" >&2
	echo "hint: install git-diffgate again (./install.sh in its source) and run: git diffgate install" >&2
	echo "hint: or remove the diff gate's hooks by hand from: $dir" >&2
	exit 1
fi
# The hook that was here before ours, run as git would run it: husky's stub
# (.husky/_/<hook>) finds the script it runs by the name it runs under.
before() {
	l2=
	{ IFS= read -r l1; IFS= read -r l2; } <"$dir/$hook.pre-diffgate"
	if [ "$l2" = '. "$(dirname "$0")/h"' ]; then
		sh -c '. "$0.pre-diffgate"' "$dir/$hook" "$@"
	else
		"$dir/$hook.pre-diffgate" "$@"
	fi
}
@BODY@
