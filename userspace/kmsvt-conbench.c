// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-conbench: how fast the text console takes text, and the fastest the
 * screen could change.
 *
 * "cat FILE > /dev/ttyN" timed: the VT layer draws in the writer's context
 * (fbcon's putcs and scrolls run inside write()), so the time write() takes
 * is the time the console takes.  The floor is the other half of the
 * comparison: fbcon without acceleration redraws the whole screen on every
 * scrolled line, so no console can beat (scrolled lines) x (one full-screen
 * store into the scanout buffer), measured here with memset on /dev/fbN's
 * mapping, which is the console's own buffer.
 *
 * A terminal in userspace (kmscon) reads a pty: write() returns once the
 * kernel's buffer holds the text, long before the terminal has parsed it.
 * --sync ends each file with a cursor position request (ESC [ 6 n) and
 * stops the clock when the answer comes back, which the terminal sends only
 * after everything before it; a VT answers the same way, so both are timed
 * alike.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/fb.h>

#include "kms-util.h"
#include "tool.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-conbench [-t TTY] [-f FB] [-n N] [-s] [FILE...]\n"
		"Write each FILE to the text console TTY and print how long it took,\n"
		"then measure the floor: N full-screen memsets of the console's own\n"
		"buffer through FB's mapping (which shows on screen).\n"
		"\n"
		"  -t, --tty TTY     the console to write to (default /dev/tty1)\n"
		"  -f, --fb FB       the framebuffer of the floor (default /dev/fb0)\n"
		"  -n, --fills N     memsets for the floor, 0 for none (default 200)\n"
		"  -s, --sync        after each FILE, wait for the answer to a cursor\n"
		"                    position request (ESC [ 6 n): the terminal has\n"
		"                    taken all of FILE (for a terminal on a pty)\n"
		"  -h, --help        this text\n"
		"\n"
		"Output, one line each, \"key value\":\n"
		"  file NAME bytes B lines L seconds S    a FILE written to TTY\n"
		"  screen WxH bpp D line_length P         the console's mode\n"
		"  fill_ms M                              one full-screen memset\n"
		"  rows R                                 text rows on screen\n"
		"Exit status 0 on success, 1 when a write or the framebuffer failed,\n"
		"2 for bad usage.\n");
}

/* Write all of @len bytes, as cat does, in pieces the tty layer takes. */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len > 65536 ? 65536 : len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		n = -errno;
		close(fd);
		return n;
	}
	*buf = malloc(st.st_size + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *buf, st.st_size);
	close(fd);
	if (n != st.st_size)
		return n < 0 ? -errno : -EIO;
	*len = n;
	return 0;
}

/*
 * Ask for the cursor position and read up to the answer's final 'R'; the
 * tty is in raw mode without echo (sync_mode()).  The answer comes after
 * everything written before the request has been taken.
 */
static int sync_tty(int tty)
{
	struct pollfd pfd = { .fd = tty, .events = POLLIN };
	char c = 0;
	int ret = write_all(tty, "\033[6n", 4);

	while (!ret && c != 'R') {
		ret = poll(&pfd, 1, 120 * 1000);
		if (ret < 0 && errno == EINTR) {
			ret = 0;
			continue;
		}
		if (ret <= 0)
			return ret ? -errno : -ETIMEDOUT;
		ret = read(tty, &c, 1) == 1 ? 0 : -EIO;
	}
	return ret;
}

/* Raw input without echo, so that the answer is read and not shown. */
static int sync_mode(int tty, struct termios *saved)
{
	struct termios raw;

	if (tcgetattr(tty, saved))
		return -errno;
	raw = *saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	tcflush(tty, TCIFLUSH);
	return tcsetattr(tty, TCSANOW, &raw) ? -errno : 0;
}

static int bench_file(int tty, const char *path, bool sync)
{
	size_t len = 0, lines = 0, i;
	char *buf = NULL;
	double t0, t1;
	int ret = read_file(path, &buf, &len);

	if (ret) {
		fprintf(stderr, "kmsvt-conbench: %s: %s\n", path, strerror(-ret));
		return ret;
	}
	for (i = 0; i < len; i++)
		lines += buf[i] == '\n';
	t0 = now();
	ret = write_all(tty, buf, len);
	if (!ret)
		tcdrain(tty);
	if (!ret && sync)
		ret = sync_tty(tty);
	t1 = now();
	free(buf);
	if (ret) {
		fprintf(stderr, "kmsvt-conbench: writing %s: %s\n", path, strerror(-ret));
		return ret;
	}
	printf("file %s bytes %zu lines %zu seconds %.3f\n", path, len, lines, t1 - t0);
	fflush(stdout);
	return 0;
}

/* One memset of the visible screen, the median of @n, in ms. */
static int bench_floor(const char *path, int n)
{
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;
	double *ms, med;
	size_t size;
	void *map;
	int fd, i, ret = 0;

	fd = open(path, O_RDWR);
	if (fd < 0 || ioctl(fd, FBIOGET_VSCREENINFO, &var) ||
	    ioctl(fd, FBIOGET_FSCREENINFO, &fix)) {
		fprintf(stderr, "kmsvt-conbench: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	printf("screen %ux%u bpp %u line_length %u\n", var.xres, var.yres, var.bits_per_pixel,
	       fix.line_length);
	printf("rows %u\n", var.yres / 16);
	size = (size_t)fix.line_length * var.yres;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ms = calloc(n, sizeof(*ms));
	if (map == MAP_FAILED || !ms) {
		fprintf(stderr, "kmsvt-conbench: mapping %s: %s\n", path, strerror(errno));
		close(fd);
		return -errno;
	}
	for (i = 0; i < n; i++) {
		double t0 = now();

		memset(map, i & 1 ? 0x00 : 0x55, size);
		ms[i] = (now() - t0) * 1e3;
	}
	qsort(ms, n, sizeof(*ms), cmp_double);
	med = ms[n / 2];
	printf("fill_ms %.3f\n", med);
	free(ms);
	munmap(map, size);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tty", required_argument, NULL, 't' },
		{ "fb", required_argument, NULL, 'f' },
		{ "fills", required_argument, NULL, 'n' },
		{ "sync", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *tty_path = "/dev/tty1", *fb_path = "/dev/fb0";
	struct termios saved;
	bool sync = false;
	long fills = 200;
	int tty, c, i, ret = 0;

	while ((c = getopt_long(argc, argv, "t:f:n:sh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			tty_path = optarg;
			break;
		case 'f':
			fb_path = optarg;
			break;
		case 'n':
			if (tool_long("kmsvt-conbench", c, optarg, 0, 100000, &fills))
				return 2;
			break;
		case 's':
			sync = true;
			break;
		default:
			return tool_help(c, usage);
		}
	}
	tty = open(tty_path, (sync ? O_RDWR : O_WRONLY) | O_NOCTTY);
	if (tty < 0 || (sync && sync_mode(tty, &saved))) {
		fprintf(stderr, "kmsvt-conbench: %s: %s\n", tty_path, strerror(errno));
		return 1;
	}
	for (i = optind; i < argc && !ret; i++)
		ret = bench_file(tty, argv[i], sync);
	if (sync)
		tcsetattr(tty, TCSANOW, &saved);
	close(tty);
	if (ret)
		return 1;
	if (fills && bench_floor(fb_path, fills))
		return 1;
	return 0;
}
