// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz, faults a client can cause: a child killed with SIGKILL in the
 * middle of nonblocking commits and flips (on its own file, or on the file
 * it shares with us), and a file closed with a flip pending.  A child that
 * does not go when killed, or dies of another signal, is reported.
 */
#include "fuzz.h"

#include <dirent.h>
#include <poll.h>
#include <sys/wait.h>


/* Wait for our child pid up to timeout seconds: 0, or -ETIMEDOUT. */
int reap(pid_t pid, double timeout, int *status)
{
	double end = now() + timeout;
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -errno;
		if (now() > end)
			return -ETIMEDOUT;
		usleep(2000);
	}
}

static void read_proc(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? 0 : read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
}

/*
 * Every task in uninterruptible sleep (kernel threads too) with its
 * kernel stack: the holder of what a stuck process waits for is among them.
 */
static void dump_blocked(void)
{
	char stat[512], stack[2048], *st;
	DIR *d = opendir("/proc");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		pid_t pid = atoi(e->d_name);

		if (pid <= 0)
			continue;
		read_proc(pid, "stat", stat, sizeof(stat));
		st = strrchr(stat, ')');
		if (!st || st[1] != ' ' || st[2] != 'D')
			continue;
		read_proc(pid, "stack", stack, sizeof(stack));
		printf("kmsvt-fuzz: blocked: %.*s\n%s", (int)(st - stat + 1), stat, stack);
	}
	if (d)
		closedir(d);
}

/* A process that does not end: where the kernel holds it, and who else waits. */
void report_stuck(pid_t pid, const char *what)
{
	static int dumped;
	char wchan[64], stack[2048];

	read_proc(pid, "wchan", wchan, sizeof(wchan));
	read_proc(pid, "stack", stack, sizeof(stack));
	anomaly("%s (pid %d) does not end: wchan %s, kernel stack:\n%s", what, (int)pid,
		wchan, stack);
	if (!dumped++)
		dump_blocked();
}

/* ---- a client killed mid-commit ---------------------------------------- */

static void flip_loop(int fd, struct scan *s)
{
	struct drm_mode_crtc_page_flip_target f = { .flags = DRM_MODE_PAGE_FLIP_EVENT };
	char ev[1024];
	double end = now() + 5;

	for (int i = 0, ret = 0; now() < end; i++) {
		/* Not master (another took it): nothing to kill mid-commit. */
		if (ret == -EACCES)
			_exit(0);
		/* A flip is pending: wait for its event as a client would. */
		if (ret == -EBUSY) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, 20);
		}
		switch (rnd(4)) {
		case 0:
			ret = commit_scanout(fd, &s[i & 1], DRM_MODE_ATOMIC_NONBLOCK |
					     DRM_MODE_PAGE_FLIP_EVENT, 0);
			break;
		case 1:
			ret = commit_scanout(fd, &s[i & 1], DRM_MODE_ATOMIC_NONBLOCK, 0);
			break;
		case 2:
			f.crtc_id = fz.crtcs.v[0];
			f.fb_id = s[i & 1].fb;
			ret = xioctl(OP_PAGE_FLIP, fd, DRM_IOCTL_MODE_PAGE_FLIP, &f);
			break;
		default:
			if (read(fd, ev, sizeof(ev)) < 0 && errno != EAGAIN)
				_exit(0);
		}
	}
}

/* The child: never returns; SIGKILL (or its own 5 s limit) ends it. */
static void commit_child(int inherited)
{
	struct scan s[2] = { { 0 } };
	int fd = inherited ? fz.card : card_open();

	if (fd < 0 || !fz.nmodes || !fz.crtcs.n)
		_exit(0);
	if (!inherited)
		xioctl(OP_SET_MASTER, fd, DRM_IOCTL_SET_MASTER, NULL);
	for (int i = 0; i < 2; i++)
		if (scan_buf(fd, &s[i], fz.modes[0].hdisplay, fz.modes[0].vdisplay))
			_exit(0);	/* no VRAM or memory left for it now */
	flip_loop(fd, s);
	_exit(0);
}

/*
 * The master's processes drop master for a child on its own file (its open
 * makes it master), and take it back after; a child on the shared file
 * flips as the master.
 */
static void op_kill_mid_commit(void)
{
	int inherited = one_in(3), status = 0, ret;
	int dropped = !inherited &&
		!xioctl(OP_DROP_MASTER, fz.card, DRM_IOCTL_DROP_MASTER, NULL);
	uint64_t seed = rnd64();
	useconds_t delay = rnd(150000);
	double t0 = now();
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fz.rng = seed;
		fz.index += 100;
		commit_child(inherited);
	}
	if (pid < 0) {
		record(OP_KILL_MID_COMMIT, errno, t0);
		return;
	}
	usleep(delay);
	kill(pid, SIGKILL);
	ret = reap(pid, 20, &status);
	if (ret == -ETIMEDOUT)
		report_stuck(pid, "a child killed mid-commit");
	else if (!ret && !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) &&
		 !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		anomaly("a child flipping until killed ended with status %#x", status);
	record(OP_KILL_MID_COMMIT, ret ? -ret : 0, t0);
	if (dropped)
		xioctl(OP_SET_MASTER, fz.card, DRM_IOCTL_SET_MASTER, NULL);
}

/* ---- a file closed with a flip pending ---------------------------------- */

static void op_close_flip_pending(void)
{
	int dropped = one_in(2) && !xioctl(OP_DROP_MASTER, fz.card, DRM_IOCTL_DROP_MASTER, NULL);
	double t0 = now();
	struct scan s;
	int fd = card_open(), ret = fd < 0 ? -fd : 0;

	if (fd >= 0 && fz.nmodes && fz.crtcs.n) {
		xioctl(OP_SET_MASTER, fd, DRM_IOCTL_SET_MASTER, NULL);
		if (!scan_buf(fd, &s, fz.modes[0].hdisplay, fz.modes[0].vdisplay))
			ret = -commit_scanout(fd, &s, DRM_MODE_ATOMIC_NONBLOCK |
					      DRM_MODE_PAGE_FLIP_EVENT, 0);
		if (one_in(2))
			usleep(rnd(20000));
	}
	if (fd >= 0) {
		double t1 = now();

		record(OP_CLOSE_CARD, close(fd) ? errno : 0, t1);
	}
	record(OP_CLOSE_FLIP_PENDING, ret, t0);
	if (dropped)
		xioctl(OP_SET_MASTER, fz.card, DRM_IOCTL_SET_MASTER, NULL);
}

void fault_step(void)
{
	if (one_in(2))
		op_kill_mid_commit();
	else
		op_close_flip_pending();
}
