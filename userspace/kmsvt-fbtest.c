// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fbtest: the fbdev calls that tools make, one command each, on a
 * framebuffer device (/dev/fb0 by default): read the mode, pan, wait for
 * vsync, blank, and a set of bad requests that must each fail and change
 * nothing.  fbset(8) covers mode changes; this covers the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/fb.h>

#include "kms-util.h"
#include "tool.h"

#ifndef FBIO_WAITFORVSYNC
#define FBIO_WAITFORVSYNC _IOW('F', 0x20, uint32_t)
#endif

static int n_fail;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-fbtest [-f FB] COMMAND [ARG...]\n"
		"fbdev calls on FB (default /dev/fb0):\n"
		"  info            the mode: visible and virtual size, depth, offsets\n"
		"  pan X Y         show the virtual screen from (X, Y) on\n"
		"  vsync N         wait for N vertical blanks, print the time taken\n"
		"  blank LEVEL     FBIOBLANK: 0 unblank, 1 normal, 2 vsync suspend,\n"
		"                  3 hsync suspend, 4 powerdown\n"
		"  bad             bad requests (absurd size, depth 7, pans past the\n"
		"                  virtual screen, a colour map past 256 entries, ...):\n"
		"                  each must fail and leave the mode as it was; prints\n"
		"                  \"ok NAME\" or \"not ok NAME: why\" for each\n"
		"\n"
		"  -f, --fb FB     the framebuffer device\n"
		"  -h, --help      this text\n"
		"\n"
		"Exit status 0 on success, 1 when a call failed (or a bad request was\n"
		"taken), 2 for bad usage.\n");
}

static int get_var(int fd, struct fb_var_screeninfo *var)
{
	if (ioctl(fd, FBIOGET_VSCREENINFO, var)) {
		fprintf(stderr, "kmsvt-fbtest: FBIOGET_VSCREENINFO: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int cmd_info(int fd)
{
	struct fb_var_screeninfo var;
	struct fb_fix_screeninfo fix;

	if (get_var(fd, &var) || ioctl(fd, FBIOGET_FSCREENINFO, &fix))
		return 1;
	printf("id %s\nmode %ux%u\nvirtual %ux%u\nbpp %u\noffset %u %u\n"
	       "line_length %u\nsmem_len %u\npanstep %u %u\n",
	       fix.id, var.xres, var.yres, var.xres_virtual, var.yres_virtual,
	       var.bits_per_pixel, var.xoffset, var.yoffset, fix.line_length, fix.smem_len,
	       fix.xpanstep, fix.ypanstep);
	return 0;
}

static int cmd_pan(int fd, unsigned long x, unsigned long y)
{
	struct fb_var_screeninfo var;

	if (get_var(fd, &var))
		return 1;
	var.xoffset = x;
	var.yoffset = y;
	if (ioctl(fd, FBIOPAN_DISPLAY, &var)) {
		fprintf(stderr, "kmsvt-fbtest: pan to %lu,%lu: %s\n", x, y, strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_vsync(int fd, unsigned long n)
{
	uint32_t screen = 0;
	double t0 = now();
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (ioctl(fd, FBIO_WAITFORVSYNC, &screen)) {
			fprintf(stderr, "kmsvt-fbtest: FBIO_WAITFORVSYNC: %s\n", strerror(errno));
			return 1;
		}
	}
	printf("vsync %lu in %.1f ms\n", n, (now() - t0) * 1e3);
	return 0;
}

static int cmd_blank(int fd, unsigned long level)
{
	if (ioctl(fd, FBIOBLANK, level)) {
		fprintf(stderr, "kmsvt-fbtest: FBIOBLANK %lu: %s\n", level, strerror(errno));
		return 1;
	}
	return 0;
}

/* A bad request: @ret must be -1, and the mode what it was. */
static void expect_fail(int fd, const struct fb_var_screeninfo *before, const char *name,
			int ret)
{
	struct fb_var_screeninfo now;
	int err = errno;

	if (ret != -1) {
		printf("not ok %s: accepted\n", name);
		n_fail++;
	} else if (get_var(fd, &now)) {
		n_fail++;
	} else if (now.xres != before->xres || now.yres != before->yres ||
		   now.bits_per_pixel != before->bits_per_pixel ||
		   now.xoffset != before->xoffset || now.yoffset != before->yoffset) {
		printf("not ok %s: the mode changed to %ux%u-%u at %u,%u\n", name, now.xres,
		       now.yres, now.bits_per_pixel, now.xoffset, now.yoffset);
		n_fail++;
	} else {
		printf("ok %s: %s\n", name, strerror(err));
	}
}

static int cmd_bad(int fd)
{
	struct fb_var_screeninfo before, var;
	uint16_t red[300] = { 0 }, green[300] = { 0 }, blue[300] = { 0 };
	struct fb_cmap cmap = { .red = red, .green = green, .blue = blue };
	uint32_t screen = 1;

	if (get_var(fd, &before))
		return 1;

	var = before;
	var.xres = 100000;
	var.xres_virtual = 100000;
	expect_fail(fd, &before, "absurd_xres", ioctl(fd, FBIOPUT_VSCREENINFO, &var));
	var = before;
	var.yres = 0;
	expect_fail(fd, &before, "zero_yres", ioctl(fd, FBIOPUT_VSCREENINFO, &var));
	var = before;
	var.bits_per_pixel = 7;
	expect_fail(fd, &before, "bpp_7", ioctl(fd, FBIOPUT_VSCREENINFO, &var));
	var = before;
	var.yres_virtual = before.yres_virtual * 64;
	expect_fail(fd, &before, "virtual_beyond_vram", ioctl(fd, FBIOPUT_VSCREENINFO, &var));

	var = before;
	var.yoffset = before.yres_virtual - before.yres + 1;
	expect_fail(fd, &before, "pan_past_bottom", ioctl(fd, FBIOPAN_DISPLAY, &var));
	var = before;
	var.xoffset = 0x7fffffff;
	expect_fail(fd, &before, "pan_huge_x", ioctl(fd, FBIOPAN_DISPLAY, &var));
	var = before;
	var.yoffset = 0x80000000u;	/* -2^31 as an int */
	expect_fail(fd, &before, "pan_negative_y", ioctl(fd, FBIOPAN_DISPLAY, &var));

	cmap.start = 250;
	cmap.len = 10;
	expect_fail(fd, &before, "cmap_past_256", ioctl(fd, FBIOPUTCMAP, &cmap));
	cmap.start = 0;
	cmap.len = 300;
	expect_fail(fd, &before, "cmap_300", ioctl(fd, FBIOPUTCMAP, &cmap));

	expect_fail(fd, &before, "vsync_screen_1", ioctl(fd, FBIO_WAITFORVSYNC, &screen));
	expect_fail(fd, &before, "unknown_ioctl", ioctl(fd, _IO('F', 0x7f), 0));

	printf("%d failed\n", n_fail);
	return n_fail ? 1 : 0;
}

static int number(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || !*s || *end || *s == '-') {
		fprintf(stderr, "kmsvt-fbtest: '%s' is not a number\n", s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fb", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path = "/dev/fb0", *cmd;
	unsigned long a = 0, b = 0;
	int fd, c, nargs;

	while ((c = getopt_long(argc, argv, "+f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			path = optarg;
			break;
		default:
			return tool_help(c, usage);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	nargs = argc - optind - 1;
	if ((!strcmp(cmd, "pan") && nargs != 2) ||
	    ((!strcmp(cmd, "vsync") || !strcmp(cmd, "blank")) && nargs != 1) ||
	    ((!strcmp(cmd, "info") || !strcmp(cmd, "bad")) && nargs != 0) ||
	    (nargs >= 1 && number(argv[optind + 1], &a)) ||
	    (nargs >= 2 && number(argv[optind + 2], &b))) {
		usage(stderr);
		return 2;
	}
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "kmsvt-fbtest: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!strcmp(cmd, "info"))
		return cmd_info(fd);
	if (!strcmp(cmd, "pan"))
		return cmd_pan(fd, a, b);
	if (!strcmp(cmd, "vsync"))
		return cmd_vsync(fd, a);
	if (!strcmp(cmd, "blank"))
		return cmd_blank(fd, a);
	if (!strcmp(cmd, "bad"))
		return cmd_bad(fd);
	fprintf(stderr, "kmsvt-fbtest: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
