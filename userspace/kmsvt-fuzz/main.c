// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz: options, the fuzzing processes and their roles, the watch
 * over them (a process that dies of a signal or does not end is reported),
 * putting the console back at the end, and the report: one line a call,
 * then the summary.
 */
#include "fuzz.h"
#include "tool.h"

#include <getopt.h>
#include <linux/capability.h>
#include <linux/fb.h>
#include <linux/kd.h>
#include <linux/tiocl.h>
#include <linux/vt.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <xf86drm.h>


#define MAX_PROCS 16

struct opts {
	uint64_t seed, calls;
	double seconds;
	int procs, groups;
};

/* What main puts back at the end. */
struct saved {
	struct fb_var_screeninfo var;
	uint16_t cmap[3][256];
	struct fb_cmap map;
	struct winsize ws;
	int have_var, have_cmap, have_ws;
};

static const char *const group_names[N_GROUPS] = { "drm", "fb", "vt", "fault" };

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-fuzz [--seed N] [--calls N] [--seconds N] [--procs N]\n"
		"                  [--device PATH] [--fb PATH] [--tty PATH] [--only GROUP,...]\n"
		"Fuzz what a user reaches of kmsvt: the DRM card, /dev/fb0 and a VT, from\n"
		"several processes at once (a master, one sharing its file, others not\n"
		"master, one unauthenticated), with faults (a child killed mid-commit, a\n"
		"file closed with a flip pending).  Needs root.  Everything random comes\n"
		"from the seed: process i draws from seed + i.\n"
		"\n"
		"  -s, --seed N       seed (default: from the clock; printed first)\n"
		"  -n, --calls N      stop after N calls, shared by the processes\n"
		"                     (default 20000)\n"
		"  -t, --seconds N    stop after N seconds, whichever comes first\n"
		"                     (default 60)\n"
		"  -p, --procs N      processes at once, 1..%d (default 4)\n"
		"  -d, --device PATH  DRM card (default: the card whose driver is kmsvt)\n"
		"  -f, --fb PATH      fbdev device (default /dev/fb0)\n"
		"  -T, --tty PATH     VT to fuzz (default /dev/tty2; never tty1)\n"
		"  -o, --only GROUPS  only these groups, comma-separated: drm, fb, vt, fault\n"
		"  -B, --core-bugs    also make the calls that hit known DRM core bugs\n"
		"                     (see the man page); off by default\n"
		"  -h, --help         this text\n"
		"\n"
		"Output: anomalies as they happen (\"kmsvt-fuzz: ANOMALY: ...\"), then a line\n"
		"a call (calls, successes, errors by errno, longest call), then the summary\n"
		"\"kmsvt-fuzz: seed S: N calls in T s ...: ok\" (or FAILED).  At the end the\n"
		"fbdev mode and colour map, the VT's mode, size and the console font are\n"
		"put back and tty1 is made the active VT.  Exit status 0, 1 if the kernel\n"
		"did something it should not (a process killed by a signal, a process\n"
		"that does not end, a fault writing a mapping the kernel gave, a call of\n"
		"more than 8 s) or the fuzzer could not run or restore, 2 for bad usage.\n",
		MAX_PROCS);
}

static int parse_groups(const char *arg)
{
	char buf[128], *tok, *save = NULL;
	int mask = 0;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int g;

		for (g = 0; g < N_GROUPS && strcmp(tok, group_names[g]); g++)
			;
		if (g == N_GROUPS)
			return 0;
		mask |= 1 << g;
	}
	return mask;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "device", required_argument, NULL, 'd' },
		{ "fb", required_argument, NULL, 'f' },
		{ "tty", required_argument, NULL, 'T' },
		{ "only", required_argument, NULL, 'o' },
		{ "core-bugs", no_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	long procs;
	int c;

	while ((c = getopt_long(argc, argv, "s:n:t:p:d:f:T:o:Bh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (tool_u64("kmsvt-fuzz", c, optarg, &o->seed))
				return 2;
			break;
		case 'n':
			if (tool_u64("kmsvt-fuzz", c, optarg, &o->calls))
				return 2;
			break;
		case 't':
			if (tool_double("kmsvt-fuzz", c, optarg, 0, &o->seconds))
				return 2;
			break;
		case 'p':
			if (tool_long("kmsvt-fuzz", c, optarg, 1, MAX_PROCS, &procs))
				return 2;
			o->procs = procs;
			break;
		case 'd':
			fz.card_path = optarg;
			break;
		case 'f':
			fz.fb_path = optarg;
			break;
		case 'T':
			fz.tty_path = optarg;
			break;
		case 'o':
			o->groups = parse_groups(optarg);
			break;
		case 'B':
			fz.core_bugs = 1;
			break;
		default:
			return tool_help(c, usage);
		}
	}
	if (optind < argc || o->procs < 1 || o->procs > MAX_PROCS || !o->groups ||
	    o->seconds <= 0)
		return usage(stderr), 2;
	return -1;
}

/* The card whose driver is kmsvt: with two cards, kmsvt need not be card0. */
static const char *find_card(void)
{
	static char path[64];

	for (int i = 0; i < 16; i++) {
		drmVersionPtr v;
		int fd;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		close(fd);
		if (v && !strcmp(v->name, "kmsvt")) {
			drmFreeVersion(v);
			return path;
		}
		drmFreeVersion(v);
	}
	return "/dev/dri/card0";
}

/* ---- state put back at the end ----------------------------------------- */

static void save_state(struct saved *s)
{
	int fb = open(fz.fb_path, O_RDWR | O_CLOEXEC);
	int tty = open(fz.tty_path, O_RDWR | O_NOCTTY | O_CLOEXEC);

	s->map = (struct fb_cmap){ .start = 0, .len = 256, .red = s->cmap[0],
				   .green = s->cmap[1], .blue = s->cmap[2] };
	s->have_var = fb >= 0 && !ioctl(fb, FBIOGET_VSCREENINFO, &s->var);
	s->have_cmap = fb >= 0 && !ioctl(fb, FBIOGETCMAP, &s->map);
	s->have_ws = tty >= 0 && !ioctl(tty, TIOCGWINSZ, &s->ws);
	if (fb >= 0)
		close(fb);
	if (tty >= 0)
		close(tty);
}

static int restore_call(int ok, const char *what)
{
	if (!ok)
		printf("kmsvt-fuzz: restore: %s: %s\n", what, strerror(errno));
	return !ok;
}

static int vt_switch(int tty, int vt)
{
	int ret = ioctl(tty, VT_ACTIVATE, vt);

	if (!ret) {
		guard(5000);
		ret = ioctl(tty, VT_WAITACTIVE, vt);
		unguard();
	}
	return ret;
}

/*
 * The fuzzed VT back in text mode with its size, the console's default
 * font, reset terminal state (and no screen blanking, which an escape
 * sequence may have set), the VT switched to so that tty1, switched to
 * last, is drawn whole.
 */
static int restore_tty(const struct saved *s)
{
	static const char reset[] = "\033c\033[9;0]\033[14;0]\033[10]\033[11]";
	struct console_font_op f = { .op = KD_FONT_OP_SET_DEFAULT };
	char unblank = TIOCL_UNBLANKSCREEN;
	int tty = open(fz.tty_path, O_RDWR | O_NOCTTY | O_CLOEXEC), bad = 0;

	if (tty < 0)
		return restore_call(0, fz.tty_path);
	bad += restore_call(!ioctl(tty, KDSETMODE, KD_TEXT), "KDSETMODE KD_TEXT");
	bad += restore_call(!ioctl(tty, KDFONTOP, &f), "default font");
	if (s->have_ws)
		bad += restore_call(!ioctl(tty, TIOCSWINSZ, &s->ws), "TIOCSWINSZ");
	bad += restore_call(write(tty, reset, sizeof(reset) - 1) > 0, "terminal reset");
	if (fz.tty_num != 1)
		bad += restore_call(!vt_switch(tty, fz.tty_num), "switch to the fuzzed VT");
	bad += restore_call(!vt_switch(tty, 1), "switch to tty1");
	bad += restore_call(!ioctl(tty, TIOCLINUX, &unblank), "unblank");
	close(tty);
	return bad;
}

static int restore_fb(struct saved *s)
{
	int fb = open(fz.fb_path, O_RDWR | O_CLOEXEC), bad = 0;

	if (fb < 0)
		return restore_call(0, fz.fb_path);
	if (s->have_var) {
		s->var.activate = FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE;
		bad += restore_call(!ioctl(fb, FBIOPUT_VSCREENINFO, &s->var), "fbdev mode");
	}
	if (s->have_cmap)
		bad += restore_call(!ioctl(fb, FBIOPUTCMAP, &s->map), "colour map");
	bad += restore_call(!ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK), "unblank fbdev");
	close(fb);
	return bad;
}

/* tty1 must be the active VT, in text mode: what a user expects back. */
static int check_tty1(void)
{
	struct vt_stat st = { 0 };
	int tty = open("/dev/tty1", O_RDWR | O_NOCTTY | O_CLOEXEC), mode = -1;

	if (tty < 0)
		return restore_call(0, "/dev/tty1");
	ioctl(tty, VT_GETSTATE, &st);
	ioctl(tty, KDGETMODE, &mode);
	close(tty);
	if (st.v_active == 1 && mode == KD_TEXT)
		return 0;
	printf("kmsvt-fuzz: restore: active VT %d (want 1), tty1 mode %d (want KD_TEXT)\n",
	       st.v_active, mode);
	return 1;
}

/* In a child: if the kernel hangs it, the report still comes. */
static int restore_all(struct saved *s)
{
	int status = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(restore_fb(s) + restore_tty(s) + check_tty1() ? 1 : 0);
	if (pid < 0)
		return 1;
	if (reap(pid, 60, &status) == -ETIMEDOUT) {
		report_stuck(pid, "the restore");
		return 1;
	}
	return !WIFEXITED(status) || WEXITSTATUS(status);
}

/* ---- the fuzzing processes --------------------------------------------- */

static int sysadmin(int on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct cap[2];
	uint32_t bit = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (syscall(SYS_capget, &hdr, cap))
		return -errno;
	if (on)
		cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective |= bit;
	else
		cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~bit;
	return syscall(SYS_capset, &hdr, cap) ? -errno : 0;
}

/* The file this role fuzzes; an unauthenticated one is opened without CAP_SYS_ADMIN. */
static int role_card(int shared_fd)
{
	int fd;

	if (fz.role == R_MASTER || fz.role == R_SHARED)
		return shared_fd;
	if (fz.role == R_UNAUTH)
		sysadmin(0);
	fd = card_open();
	if (fz.role == R_UNAUTH)
		sysadmin(1);
	return fd;
}

static int pick_group(void)
{
	static const int weight[N_GROUPS] = { 700, 140, 140, 3 };
	int total = 0, r;

	int groups = fz.groups;

	/* Faults need the master's file: they hand master to a child. */
	if (fz.role != R_MASTER && fz.role != R_SHARED && groups != 1 << G_FAULT)
		groups &= ~(1 << G_FAULT);
	for (int g = 0; g < N_GROUPS; g++)
		total += groups & (1 << g) ? weight[g] : 0;
	r = (int)rnd(total);
	for (int g = 0; g < N_GROUPS; g++) {
		if (!(groups & (1 << g)))
			continue;
		if (r < weight[g])
			return g;
		r -= weight[g];
	}
	return G_DRM;
}

static void fuzz_loop(void)
{
	static void (*const steps[N_GROUPS])(void) = { drm_step, fb_step, vt_step, fault_step };

	while (budget_left())
		steps[pick_group()]();
}

/* One fuzzing process; never returns. */
static void fuzz_proc(int shared_fd)
{
	fz.card = role_card(shared_fd);
	if (fz.card < 0) {
		printf("kmsvt-fuzz: process %d: %s: %s\n", fz.index, fz.card_path,
		       strerror(-fz.card));
		_exit(3);
	}
	drm_discover();
	fuzz_loop();
	_exit(0);
}

static pid_t spawn(int index, const struct opts *o, int shared_fd)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	fz.index = index;
	fz.role = index == 0 ? R_MASTER : index == 1 ? R_SHARED : index % 2 ? R_UNAUTH : R_OTHER;
	fz.rng = o->seed + (uint64_t)index;
	fz.budget = o->calls / o->procs + (index == 0 ? o->calls % o->procs : 0);
	fuzz_proc(shared_fd);
	return 0;
}

/*
 * Wait for every process, at most until the deadline and a minute more
 * (each call is bounded by a guard): one still there is stuck in the kernel.
 * Once one dies of a signal (an oops kills with SIGSEGV), the others stop
 * and get half a minute: after an oops, locks the dead task held may never
 * be released.
 */
static int watch(pid_t *pids, int n, double deadline)
{
	int left = n, failed = 0, status;
	double limit = deadline + 60;

	while (left) {
		for (int i = 0; i < n; i++) {
			int ret;

			if (!pids[i] || (ret = reap(pids[i], 0, &status)) == -ETIMEDOUT)
				continue;
			if (!ret && WIFSIGNALED(status)) {
				anomaly("fuzzing process %d died of signal %d (%s)", i,
					WTERMSIG(status), strsignal(WTERMSIG(status)));
				sh->stop = 1;
				limit = now() + 30 < limit ? now() + 30 : limit;
			}
			else if (!ret && WEXITSTATUS(status))
				failed = 1;
			pids[i] = 0;
			left--;
		}
		if (left && now() > limit) {
			for (int i = 0; i < n; i++)
				if (pids[i]) {
					report_stuck(pids[i], "a fuzzing process");
					kill(pids[i], SIGKILL);
					reap(pids[i], 10, &status);
					pids[i] = 0;
				}
			break;
		}
		usleep(20000);
	}
	return failed;
}

/* ---- the report --------------------------------------------------------- */

static void print_errors(const struct opstat *s)
{
	int done[N_ERRNO + 1] = { 0 };

	for (;;) {
		int best = -1;

		for (int e = 1; e <= N_ERRNO; e++)
			if (s->err[e] && !done[e] && (best < 0 || s->err[e] > s->err[best]))
				best = e;
		if (best < 0)
			break;
		done[best] = 1;
		printf(" %s:%llu", best == N_ERRNO ? "other" : strerrorname_np(best) ?: "?",
		       (unsigned long long)s->err[best]);
	}
}

static uint64_t report(void)
{
	uint64_t total = 0;

	printf("%-22s %9s %9s %8s  %s\n", "call", "calls", "ok", "max ms", "errors");
	for (int i = 0; i < N_OPS; i++) {
		const struct opstat *s = &sh->op[i];

		if (!s->calls)
			continue;
		total += s->calls;
		printf("%-22s %9llu %9llu %8.1f ", op_names[i], (unsigned long long)s->calls,
		       (unsigned long long)s->ok, s->max_ns / 1e6);
		print_errors(s);
		printf("\n");
	}
	return total;
}

static void print_start(const struct opts *o)
{
	printf("kmsvt-fuzz: seed %llu, calls %llu, seconds %g, procs %d, device %s, fb %s, tty %s, groups",
	       (unsigned long long)o->seed, (unsigned long long)o->calls, o->seconds, o->procs,
	       fz.card_path, fz.fb_path, fz.tty_path);
	for (int g = 0; g < N_GROUPS; g++)
		if (o->groups & (1 << g))
			printf(" %s", group_names[g]);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct opts o = { .seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32,
			  .calls = 20000, .seconds = 60, .procs = 4, .groups = 0xf };
	pid_t pids[MAX_PROCS] = { 0 };
	struct saved saved;
	int ret = parse(argc, argv, &o), failed, fd;
	double t0, deadline;
	uint64_t total;

	if (ret >= 0)
		return ret;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fz.fb_path = fz.fb_path ?: "/dev/fb0";
	fz.tty_path = fz.tty_path ?: "/dev/tty2";
	fz.card_path = fz.card_path ?: find_card();
	fz.tty_num = atoi(fz.tty_path + strcspn(fz.tty_path, "0123456789"));
	fz.fb = fz.tty = -1;
	fz.groups = o.groups;
	print_start(&o);
	shared_init();
	guard_init();
	crash_init();
	save_state(&saved);
	t0 = now();
	deadline = t0 + o.seconds;
	fz.deadline = deadline;

	/* Opened here, so the first two processes share one file: the master's. */
	fd = card_open();
	if (fd < 0) {
		printf("kmsvt-fuzz: %s: %s\n", fz.card_path, strerror(-fd));
		return 1;
	}
	for (int i = 0; i < o.procs; i++)
		pids[i] = spawn(i, &o, fd);
	close(fd);
	failed = watch(pids, o.procs, deadline);
	failed += restore_all(&saved);

	total = report();
	printf("kmsvt-fuzz: seed %llu: %llu calls in %.1f s (%.0f/s), %d processes, %llu anomalies: %s\n",
	       (unsigned long long)o.seed, (unsigned long long)total, now() - t0,
	       total / (now() - t0), o.procs, (unsigned long long)sh->anomalies,
	       sh->anomalies || failed ? "FAILED" : "ok");
	return sh->anomalies || failed ? 1 : 0;
}
