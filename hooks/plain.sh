if [ -x "$dir/$hook.pre-diffgate" ]; then
	before "$@" || exit $?
fi
exec "$diffgate" hook @RUN@ "$@"
