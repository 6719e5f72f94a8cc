# Helpers for the scripts (sourced, through scripts/deps.sh): lines that say what runs and how long it
# took, steps that name themselves when they fail, and apt-get that waits for another install's lock.
# Every line goes to standard error, prefixed with the script's name.

script_name="scripts/${0##*/}"

# say prints a line about what the script does.
say() { printf '%s: %s\n' "$script_name" "$*" >&2; }

# now is the time in seconds.
now() { date +%s; }

# duration formats seconds for reading: 42s, 3m05s.
duration() {
	local s=$1
	if ((s < 60)); then printf '%ds' "$s"; else printf '%dm%02ds' $((s / 60)) $((s % 60)); fi
}

# step NAME CMD [ARG...] runs CMD as the step NAME: it says so, then how long it took; if CMD fails, it
# names the step and exits with CMD's status. A step that runs longer than $step_beat seconds says so
# every $step_beat seconds (0: never, for a command that reports its own progress).
step_beat=60
step() {
	local name=$1 t0 status=0 beat=""
	shift
	t0=$(now)
	say "$name ..."
	if ((step_beat > 0)); then
		(while sleep "$step_beat"; do say "... still at: $name ($(duration $(($(now) - t0))) so far)"; done) &
		beat=$!
	fi
	"$@" || status=$?
	if [ -n "$beat" ]; then
		kill "$beat" 2>/dev/null || true
		wait "$beat" 2>/dev/null || true
	fi
	if ((status != 0)); then
		say "FAILED at step: $name (exit status $status, after $(duration $(($(now) - t0))))"
		exit "$status"
	fi
	say "$name: done in $(duration $(($(now) - t0)))"
}

# A command that fails outside a step still says where it was.
trap 'lib_status=$?; say "FAILED: \"$BASH_COMMAND\" exited $lib_status (line $LINENO)"' ERR

# --- apt-get, waiting for the package manager's lock ---

# apt's lock files: another apt-get, dpkg, unattended-upgrades or packagekit holds one while it works.
apt_lock_files=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)
# How long to wait for them, in seconds.
apt_lock_wait=${GOCURATOR_APT_LOCK_WAIT:-600}

# apt_lock_holder prints who holds one of apt's locks ("process 123 (apt-get, up 42s) holds FILE"),
# or nothing if none is held. apt locks with fcntl(2), which /proc/locks lists by inode.
apt_lock_holder() {
	local f ino pid up
	[ -r /proc/locks ] || return 0
	for f in "${apt_lock_files[@]}"; do
		ino=$(stat -c %i "$f" 2>/dev/null) || continue
		pid=$(awk -v ino="$ino" '$2 != "->" { n = split($6, a, ":"); if (a[n] == ino) { print $5; exit } }' /proc/locks)
		if [ -n "$pid" ]; then
			up=$(ps -o etimes= -p "$pid" 2>/dev/null | tr -d ' ') || up=""
			printf 'process %s (%s%s) holds %s' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null || echo unknown)" \
				"${up:+, up $(duration "$up")}" "$f"
			return 0
		fi
	done
}

# wait_for_apt_lock returns once no process holds apt's locks, saying what it waits for (a line at
# once, then one every 15 s), or fails after $apt_lock_wait seconds.
wait_for_apt_lock() {
	local holder t0 waited next=0
	t0=$(now)
	while holder=$(apt_lock_holder) && [ -n "$holder" ]; do
		waited=$(($(now) - t0))
		if ((waited >= apt_lock_wait)); then
			say "gave up waiting for the package manager's lock after $(duration "$waited"): $holder" \
				"(GOCURATOR_APT_LOCK_WAIT=SECONDS waits longer)"
			return 100
		fi
		if ((waited >= next)); then
			say "waiting for the package manager's lock ($(duration "$waited") so far, up to $(duration "$apt_lock_wait")): $holder"
			next=$((waited + 15))
		fi
		sleep 1
	done
}

# apt_get LOG ARG... runs apt-get ARG... once apt's locks are free, its output appended to LOG. If
# another install takes the lock between the wait and apt-get (which then fails at once rather than
# wait without a word), it waits again, saying so, up to $apt_lock_wait seconds in all.
apt_get() {
	local log=$1 status t0 waited next=0
	shift
	t0=$(now)
	while :; do
		wait_for_apt_lock || return
		status=0
		DEBIAN_FRONTEND=noninteractive $apt_sudo apt-get "$@" >>"$log" 2>&1 || status=$?
		if ((status == 0)) || ! tail -n 3 "$log" | grep -q 'Could not get lock\|Unable to lock'; then
			return "$status"
		fi
		waited=$(($(now) - t0))
		if ((waited >= apt_lock_wait)); then
			say "gave up waiting for the package manager's lock after $(duration "$waited")"
			return "$status"
		fi
		if ((waited >= next)); then
			say "waiting for the package manager's lock ($(duration "$waited") so far): apt-get says" \
				"$(grep -o 'held by process.*' "$log" | tail -n 1)"
			next=$((waited + 15))
		fi
		sleep 1
	done
}

# apt_progress reads apt's status lines (APT::Status-Fd) and says how far the download and the
# installation are: a line per tenth, and each package as dpkg installs it.
apt_progress() {
	local kind pkg pct msg stage="" last=-1 p what
	while IFS=: read -r kind pkg pct msg; do
		case $kind in
		dlstatus) what=downloading ;;
		pmstatus) what=installing ;;
		pmerror) say "  dpkg: $pkg: $msg"; continue ;;
		*) continue ;;
		esac
		p=${pct%%.*}
		[[ $p =~ ^[0-9]+$ ]] || continue
		if [ "$what" != "$stage" ] || ((p / 10 > last / 10)) || [[ $what == installing && $msg == Installing* ]]; then
			say "  $what: $p% ($msg)"
			stage=$what last=$p
		fi
	done
}

# apt_install PACKAGE... installs the packages, saying what comes along and how far it is, after
# waiting for another install to finish; apt-get's own output goes to a log it names if a step fails.
apt_install() {
	local log n
	apt_sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		apt_sudo="sudo"
		say "installing needs root: running apt-get with sudo (it may ask for your password)"
	fi
	log=$(mktemp -t gocurator-apt.XXXXXX)
	say "installing Debian packages: $* (apt-get's output: $log)"
	step "apt-get update (the package lists)" apt_get "$log" update
	n=$(apt-get -s install "$@" 2>/dev/null | grep -c '^Inst ') || n="?"
	say "to install: $n package(s), $* and what they need"
	step "apt-get install" apt_install_progress "$log" "$@"
	rm -f "$log"
}

# apt_install_progress LOG PACKAGE... is apt-get install with its progress said; a failure's last
# lines of LOG are shown.
apt_install_progress() {
	local log=$1 status=0
	shift
	apt_get "$log" -o APT::Status-Fd=3 install -y "$@" 3>&1 | apt_progress || status=$?
	if ((status != 0)); then
		say "apt-get install failed; the end of its output ($log):"
		tail -n 20 "$log" | sed 's/^/    /' >&2
	fi
	return "$status"
}
