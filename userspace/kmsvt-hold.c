// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-hold: map a dumb buffer of a DRM device and the fbdev framebuffer,
 * and keep writing through both mappings, for tests that take the device
 * away underneath (PCI remove, module unload, suspend).  Reports, once a
 * second, how many passes each mapping took, the SIGBUSes it got and what
 * an ioctl on each open file answers now.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/fb.h>

#include "kms-util.h"
#include "tool.h"

/* The colour written into the framebuffer's bottom rows: easy to find on a screendump. */
#define HOLD_COLOR 0x00ff00ffu
#define FB_ROWS 32

enum { T_DUMB, T_FB, N_T };

static sigjmp_buf jb;
static volatile sig_atomic_t cur = -1, stop;

static void on_sigbus(int sig)
{
	(void)sig;
	if (cur >= 0)
		siglongjmp(jb, 1);
	_exit(3);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-hold [-d /dev/dri/cardN] [-f /dev/fbN] [-s SECONDS] [--no-dumb] [--no-fb]\n"
		"Map a 256x256 XRGB8888 dumb buffer of the DRM device and the whole fbdev\n"
		"framebuffer, and keep writing through both mappings (the framebuffer's\n"
		"bottom %d rows in magenta, #ff00ff) until SECONDS pass (default: until\n"
		"SIGTERM or SIGINT).  Does not take DRM master (drops it if it got it).\n"
		"\n"
		"  -d, --device PATH   DRM device node (default /dev/dri/card0)\n"
		"  -f, --fb PATH       fbdev node (default /dev/fb0)\n"
		"  -s, --seconds N     stop after N seconds\n"
		"      --no-dumb       no DRM device, only the framebuffer\n"
		"      --no-fb         no framebuffer, only the dumb buffer\n"
		"  -h, --help          this text\n"
		"\n"
		"Output, a line a second and one at exit:\n"
		"  hold: dumb passes N sigbus N ioctl OK|ERRNO fb passes N sigbus N ioctl OK|ERRNO\n"
		"A mapping that raised SIGBUS is not written again.  Exit status 0, 1 if\n"
		"the device or framebuffer cannot be opened or mapped, 2 for bad usage.\n",
		FB_ROWS);
}

struct target {
	const char *name;
	int fd;
	uint32_t *map;
	size_t len;		/* bytes mapped */
	size_t from, words;	/* the words written: map[from .. from + words) */
	unsigned long passes, sigbus;
	int dead;		/* got SIGBUS: not written again */
	int err;		/* last ioctl's errno, 0 for OK */
	uint32_t fill;		/* the colour written, 0 for a changing pattern */
};

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "OK";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case EINVAL: return "EINVAL";
	case EACCES: return "EACCES";
	case EBADF: return "EBADF";
	case ENXIO: return "ENXIO";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static int open_dumb(const char *path, struct target *t)
{
	struct drm_mode_create_dumb c;
	int ret;

	t->fd = open(path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0)
		return fprintf(stderr, "kmsvt-hold: %s: %s\n", path, strerror(errno)), -1;
	if (drmIsMaster(t->fd))
		drmDropMaster(t->fd);
	ret = dumb_create(t->fd, 256, 256, 32, &c);
	if (ret)
		return fprintf(stderr, "kmsvt-hold: dumb buffer: %s\n", strerror(-ret)), -1;
	t->len = c.size;
	t->map = dumb_map(t->fd, c.handle, t->len, 0);
	if (!t->map)
		return fprintf(stderr, "kmsvt-hold: dumb mmap: %s\n", strerror(errno)), -1;
	t->from = 0;
	t->words = t->len / 4;
	return 0;
}

static int open_fb(const char *path, struct target *t)
{
	struct fb_fix_screeninfo fix;
	struct fb_var_screeninfo var;
	size_t row0;
	void *p;

	t->fd = open(path, O_RDWR | O_CLOEXEC);
	if (t->fd < 0)
		return fprintf(stderr, "kmsvt-hold: %s: %s\n", path, strerror(errno)), -1;
	if (ioctl(t->fd, FBIOGET_FSCREENINFO, &fix) || ioctl(t->fd, FBIOGET_VSCREENINFO, &var))
		return fprintf(stderr, "kmsvt-hold: %s: %s\n", path, strerror(errno)), -1;
	t->len = fix.smem_len;
	p = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED)
		return fprintf(stderr, "kmsvt-hold: %s mmap: %s\n", path, strerror(errno)), -1;
	t->map = p;
	t->fill = HOLD_COLOR;
	/* The visible screen's bottom rows, at 32 bpp; the whole row span at 16. */
	row0 = var.yres > FB_ROWS ? var.yres - FB_ROWS : 0;
	t->from = row0 * fix.line_length / 4;
	t->words = (size_t)(var.yres - row0) * fix.line_length / 4;
	if ((t->from + t->words) * 4 > t->len)
		t->words = t->len / 4 - t->from;
	return 0;
}

/* One pass over x's words; on SIGBUS, x is not written again. */
static void write_pass(struct target *x)
{
	cur = 1;
	if (sigsetjmp(jb, 1)) {
		cur = -1;
		x->sigbus++;
		x->dead = 1;
		printf("hold: SIGBUS writing %s after %lu passes\n", x->name, x->passes);
		fflush(stdout);
		return;
	}
	for (size_t k = 0; k < x->words; k++)
		x->map[x->from + k] = x->fill ? x->fill : (uint32_t)(k ^ x->passes);
	cur = -1;
	x->passes++;
}

static void report(const struct target *t, int n)
{
	printf("hold:");
	for (int i = 0; i < n; i++)
		if (t[i].map)
			printf(" %s passes %lu sigbus %lu ioctl %s", t[i].name, t[i].passes,
			       t[i].sigbus, errname(t[i].err));
	printf("\n");
	fflush(stdout);
}

static void probe(struct target *t)
{
	struct fb_var_screeninfo var;
	drmModeRes *res;

	if (t[T_DUMB].map) {
		errno = 0;
		res = drmModeGetResources(t[T_DUMB].fd);
		t[T_DUMB].err = res ? 0 : (errno ? errno : EIO);
		drmModeFreeResources(res);
	}
	if (t[T_FB].map)
		t[T_FB].err = ioctl(t[T_FB].fd, FBIOGET_VSCREENINFO, &var) ? errno : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "fb", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 's' },
		{ "no-dumb", no_argument, NULL, 'D' },
		{ "no-fb", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *dev = "/dev/dri/card0", *fb = "/dev/fb0";
	struct target t[N_T] = { { .name = "dumb", .fd = -1 }, { .name = "fb", .fd = -1 } };
	int use[N_T] = { 1, 1 }, o;
	double seconds = 0, t0, last;
	struct sigaction sa = { 0 };

	while ((o = getopt_long(argc, argv, "d:f:s:h", opts, NULL)) != -1) {
		switch (o) {
		case 'd': dev = optarg; break;
		case 'f': fb = optarg; break;
		case 's':
			if (tool_double("kmsvt-hold", o, optarg, 0, &seconds))
				return 2;
			break;
		case 'D': use[T_DUMB] = 0; break;
		case 'F': use[T_FB] = 0; break;
		default: return tool_help(o, usage);
		}
	}
	if (optind != argc || (!use[T_DUMB] && !use[T_FB]))
		return usage(stderr), 2;
	if ((use[T_DUMB] && open_dumb(dev, &t[T_DUMB])) || (use[T_FB] && open_fb(fb, &t[T_FB])))
		return 1;

	sa.sa_handler = on_sigbus;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sa.sa_handler = on_term;
	sa.sa_flags = 0;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	report(t, N_T);
	t0 = last = now();
	while (!stop && (!seconds || now() - t0 < seconds)) {
		for (int i = 0; i < N_T; i++)
			if (t[i].map && !t[i].dead)
				write_pass(&t[i]);
		if (now() - last >= 1) {
			last = now();
			probe(t);
			report(t, N_T);
		}
		usleep(2000);
	}
	probe(t);
	report(t, N_T);
	return 0;
}
