# The reaper of one process group started by `bellwether run` (run by /bin/sh).
#
# Its standard input is a pipe from the runner, one line per message:
#   group PGID       the group to watch, before the group's first program may run (once)
#   expires-in MS    the group must be gone MS milliseconds from now unless a later message says otherwise: the time
#                    left of the leadership's validity, less the kill margin, on the runner's clock
#   term | kill      signal the group with SIGTERM | SIGKILL
#   done             the group is gone: cancel the timer and exit
# Anything else is ignored, with a line on standard error.
#
# Two ways the group dies without the runner's help, so that no program of an old leader lives on beside the next:
# - the runner's process ends, however it ends (kill -9, out of memory): the kernel closes the pipe, read meets end
#   of file, and the group gets SIGKILL at once;
# - the runner stops answering (SIGSTOP, a long GC pause): the pipe stays open, but no fresh "expires-in" comes, and
#   the timer of the last one sends SIGKILL to the group when it runs out. The timer is a subshell sleeping MS
#   milliseconds; each "expires-in" replaces it. SIGKILL only: the time left is the kill margin, no grace fits.
#
# kill, read, wait and printf are built-ins of sh; the only programs started are one subshell and one sleep per
# timer (a sleep that takes fractions of a second, as GNU coreutils' does: the runner checks it at start-up). The
# reaper ignores the signals a terminal sends to its foreground group (Ctrl-C, Ctrl-Z and the rest), so that it stays
# awake while the runner is interrupted or stopped from a terminal.
trap '' INT TERM HUP QUIT PIPE TSTP TTIN TTOU
group=
timer=

# A decimal number of at most 9 digits without a leading zero (sh arithmetic reads 010 as octal).
number() {
    case $1 in
        '' | *[!0-9]* | 0?*) return 1 ;;
    esac
    [ ${#1} -le 9 ]
}

malformed() {
    printf 'bellwether-reaper: ignored a malformed line: %.100s\n' "$1" >&2
}

# Cancels the timer, if any, and waits for its subshell, so that no zombie is left behind.
disarm() {
    if [ -n "$timer" ]; then
        kill -USR1 "$timer" 2>/dev/null
        wait "$timer" 2>/dev/null
        timer=
    fi
}

# Starts a timer that sends SIGKILL to the group after $1 milliseconds. USR1 cancels it: the subshell kills its sleep
# (with SIGKILL, as the sleep inherits the ignored SIGTERM), collects it and leaves, so that no sleep is left over as
# a zombie (where init does not collect orphans, in a container, they would pile up at one per renewal). A USR1 that
# comes before the trap is set ends the subshell by its default action, before the sleep has started; one that comes
# between the sleep's start and its pid being known is acted on once the pid is.
arm() {
    frac=$(($1 % 1000))
    case $frac in
        ?) frac=00$frac ;;
        ??) frac=0$frac ;;
    esac
    (
        s=
        cancelled=
        trap 'cancelled=1; [ -n "$s" ] && kill -KILL "$s" 2>/dev/null' USR1
        sleep "$(($1 / 1000)).$frac" &
        s=$!
        [ -n "$cancelled" ] && kill -KILL "$s" 2>/dev/null
        wait "$s" 2>/dev/null
        if [ -n "$cancelled" ]; then
            wait "$s" 2>/dev/null # a wait that USR1 interrupted has not collected the sleep
            exit 0
        fi
        printf 'bellwether-reaper: no word from the runner within %s ms: killing process group %s\n' "$1" "$group" >&2
        kill -KILL "-$group" 2>/dev/null
    ) &
    timer=$!
}

while IFS= read -r line; do
    case $line in
        "group "*)
            if [ -n "$group" ] || ! number "${line#group }" || [ "${line#group }" -lt 2 ]; then
                malformed "$line"
            else
                group=${line#group }
            fi
            ;;
        "expires-in "*)
            if [ -z "$group" ] || ! number "${line#expires-in }"; then
                malformed "$line"
            else
                disarm
                arm "${line#expires-in }"
            fi
            ;;
        term) [ -n "$group" ] && kill -TERM "-$group" 2>/dev/null ;;
        kill) [ -n "$group" ] && kill -KILL "-$group" 2>/dev/null ;;
        done)
            disarm
            exit 0
            ;;
        *) malformed "$line" ;;
    esac
done
[ -n "$group" ] && kill -KILL "-$group" 2>/dev/null
disarm
exit 0
