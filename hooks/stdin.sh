if [ -x "$dir/$hook.pre-diffgate" ]; then
	# Both hooks need the ref updates on stdin: keep them for each.
	input=$(cat)
	printf '%s\n' "$input" | before "$@" || exit $?
	[ "$1" = prepared ] || exit 0
	printf '%s\n' "$input" | exec "$diffgate" hook "$hook" "$@"
fi
# Only the prepared state is judged; the others pass without reading anything.
[ "$1" = prepared ] || exit 0
exec "$diffgate" hook "$hook" "$@"
