// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-switch: make VT N the active one and say how long it took.
 *
 * The request is VT_ACTIVATE on the console; the switch is done when
 * VT_GETSTATE reports N active.  VT_WAITACTIVE is not used: it waits
 * without a timeout, and a session that handles its VT itself (VT_PROCESS)
 * and hangs would hang us too.  Times are CLOCK_MONOTONIC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/vt.h>

#define VT_MAX 63	/* MAX_NR_CONSOLES */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-switch [-c TTY] [-t MS] N\n"
		"Make virtual terminal N (1-%d) the active one, as Alt+FN or chvt would,\n"
		"and print how long the switch took, from the request until the kernel\n"
		"reports N active.  A session that handles its VT itself (Xorg, a\n"
		"compositor, seatd) decides when it lets go; -t bounds the wait.\n"
		"\n"
		"  -c, --console TTY   the console to ask (default /dev/tty0)\n"
		"  -t, --timeout MS    give up after MS milliseconds (default 5000)\n"
		"  -h, --help          this text\n"
		"\n"
		"Output: \"vt A -> N: active after T ms\".  Exit status 0 when N is active,\n"
		"1 when the request failed or timed out, 2 for bad usage.\n", VT_MAX);
}

/* N as a whole decimal number in 1..VT_MAX, or 0. */
static int parse_vt(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < 1 || n > VT_MAX)
		return 0;
	return (int)n;
}

static int active_vt(int fd)
{
	struct vt_stat st;

	return ioctl(fd, VT_GETSTATE, &st) ? -errno : st.v_active;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "console", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *tty = "/dev/tty0";
	double timeout = 5000, t0, t;
	int o, vt, from, cur, fd;

	while ((o = getopt_long(argc, argv, "c:t:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			tty = optarg;
			break;
		case 't':
			timeout = atof(optarg);
			if (timeout <= 0) {
				fprintf(stderr, "kmsvt-switch: -t needs a positive number of ms\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	vt = parse_vt(argv[optind]);
	if (!vt) {
		fprintf(stderr, "kmsvt-switch: '%s' is not a VT: give a number from 1 to %d\n",
			argv[optind], VT_MAX);
		return 2;
	}
	fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "kmsvt-switch: %s: %s\n", tty, strerror(errno));
		return 1;
	}
	from = active_vt(fd);
	if (from < 0) {
		fprintf(stderr, "kmsvt-switch: %s is not a VT console: %s\n", tty, strerror(-from));
		return 1;
	}
	t0 = now_ms();
	if (from != vt && ioctl(fd, VT_ACTIVATE, vt)) {
		fprintf(stderr, "kmsvt-switch: VT_ACTIVATE %d: %s\n", vt, strerror(errno));
		return 1;
	}
	while ((cur = active_vt(fd)) != vt && (t = now_ms()) - t0 < timeout) {
		if (cur < 0) {
			fprintf(stderr, "kmsvt-switch: VT_GETSTATE: %s\n", strerror(-cur));
			return 1;
		}
		usleep(200);
	}
	t = now_ms() - t0;
	close(fd);
	if (cur != vt) {
		fprintf(stderr, "kmsvt-switch: vt %d -> %d: still on vt %d after %.0f ms\n", from,
			vt, cur, t);
		return 1;
	}
	printf("vt %d -> %d: active after %.3f ms\n", from, vt, t);
	return 0;
}
