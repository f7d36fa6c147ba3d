# The ref updates arrive on stdin: keep them for the chained hook and for ours.
input=$(cat)
if [ -x "$dir/$hook.pre-diffgate" ]; then
	printf '%s\n' "$input" | "$dir/$hook.pre-diffgate" "$@" || exit $?
fi
# Only branch updates in the prepared state are judged; everything else passes
# without starting a process.
[ "$1" = prepared ] || exit 0
case "$input" in
*" refs/heads/"*) ;;
*) exit 0 ;;
esac
printf '%s\n' "$input" | exec "$diffgate" hook "$hook" "$@"
