# The reaper of one process group started by `bellwether run` (run by /bin/sh).
#
# Its standard input is a pipe from the runner. The runner writes "group PGID" before the group's first program
# may run, then "term" or "kill" to signal the group, and "done" once the group is gone. When the runner's process
# ends, however it ends (kill -9, out of memory), the kernel closes the pipe: read meets end of file and the
# reaper kills the whole group with SIGKILL, so that no program of an old leader lives on beside the next one.
# kill is a built-in of sh: signalling forks nothing.
trap '' INT TERM HUP QUIT PIPE
group=
while IFS= read -r line; do
    case $line in
        "group "*) group=${line#group } ;;
        term) [ -n "$group" ] && kill -TERM "-$group" 2>/dev/null ;;
        kill) [ -n "$group" ] && kill -KILL "-$group" 2>/dev/null ;;
        done) exit 0 ;;
    esac
done
[ -n "$group" ] && kill -KILL "-$group" 2>/dev/null
exit 0
