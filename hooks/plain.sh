if [ -x "$dir/$hook.pre-diffgate" ]; then
	"$dir/$hook.pre-diffgate" "$@" || exit $?
fi
exec "$diffgate" hook @RUN@ "$@"
