// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-switch: make VT N the active one and say how long it took.
 *
 * The request is VT_ACTIVATE on the console; the switch is done when
 * VT_GETSTATE reports N active.  VT_WAITACTIVE is not used: it waits
 * without a timeout, and a session that handles its VT itself (VT_PROCESS)
 * and hangs would hang us too.  Times are CLOCK_MONOTONIC.
 *
 * A VT that is active is not yet a picture: when a kmsvt-session owns VT N
 * (its status file in the sessions folder says "vt N"), the switch ends at
 * the first frame that session shows after the request, as its page-flip
 * event timestamped it.
 *
 * Any owner (Xorg, a compositor, the console) is timed with -d CARD, the
 * same way on every driver: until the card's CRTC has another framebuffer
 * than before the request (DRM_IOCTL_MODE_GETCRTC, which needs no master),
 * i.e. the new owner's first commit.  A driver with vblanks shows it at the
 * next one; in-tree bochs at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "session-status.h"
#include "tool.h"

#define VT_MAX 63	/* MAX_NR_CONSOLES */
#define REASK_MS 500	/* repeat VT_ACTIVATE while the switch is not done */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-switch [-c TTY] [-t MS] [-s DIR] [-d CARD] N\n"
		"Make virtual terminal N (1-%d) the active one, as Alt+FN or chvt would,\n"
		"and print how long the switch took, from the request until the kernel\n"
		"reports N active and, when a kmsvt-session owns VT N, until that session\n"
		"shows its first frame after the request.  A session that handles its VT\n"
		"itself (Xorg, a compositor, seatd) decides when it lets go; -t bounds\n"
		"the wait.\n"
		"\n"
		"  -c, --console TTY   the console to ask (default /dev/tty0)\n"
		"  -t, --timeout MS    give up after MS milliseconds (default 5000)\n"
		"  -s, --sessions DIR  kmsvt-session's status folder (default\n"
		"                      /run/kmsvt-session)\n"
		"  -d, --card CARD     also wait for the new owner's first commit on CARD\n"
		"                      (e.g. /dev/dri/card0), whoever the owner is: until\n"
		"                      its CRTC has another framebuffer than before the\n"
		"                      request\n"
		"  -h, --help          this text\n"
		"\n"
		"Output: \"vt A -> N: active after T ms\", followed by \", first frame of\n"
		"NAME after F ms\" when a session owns N, and with -d by \", new\n"
		"framebuffer after P ms\".  Exit status 0 when N is active (and its\n"
		"session showed a frame, the card a new framebuffer), 1 when the request\n"
		"failed or timed out, 2 for bad usage.\n", VT_MAX);
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

static int vt_mode(int vt)
{
	char path[32];
	int mode = -1, fd;

	snprintf(path, sizeof(path), "/dev/tty%d", vt);
	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ioctl(fd, KDGETMODE, &mode))
		mode = -1;
	close(fd);
	return mode;
}

/*
 * When the VT we leave was in graphics mode under a VT_PROCESS owner that
 * died (a seatd or X killed with SIGKILL), the kernel resets that VT to
 * text before switching, and so never tells fbcon that graphics mode
 * ended: the console stays dark on every text VT.  Entering and leaving
 * graphics mode on the new text VT gives fbcon the notice it missed.  The
 * mark of that case: the old VT went from graphics to text across the
 * switch, which no seat provider does on a plain switch.
 */
static void revive_console(int vt, int old_vt, int old_mode)
{
	char path[32];
	int fd;

	if (old_mode != KD_GRAPHICS || vt_mode(old_vt) != KD_TEXT || vt_mode(vt) != KD_TEXT)
		return;
	snprintf(path, sizeof(path), "/dev/tty%d", vt);
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!ioctl(fd, KDSETMODE, KD_GRAPHICS))
		ioctl(fd, KDSETMODE, KD_TEXT);
	close(fd);
}

/* Read one kmsvt-session status file; 0 when its session is alive on a VT. */
static int read_status(const char *path, struct session_status *st)
{
	FILE *f = fopen(path, "r");
	int ret;

	if (!f)
		return -1;
	ret = session_status_read(f, st);
	fclose(f);
	if (ret)
		return ret;
	/* A session killed with SIGKILL leaves its file behind. */
	if (st->pid > 0 && kill(st->pid, 0) && errno == ESRCH)
		return -1;
	return st->vt ? 0 : -1;
}

/* The status of the session on VT vt, found in dir; 0 if there is one. */
static int session_on(const char *dir, int vt, struct session_status *st, char *path,
		      size_t len)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int found = -1;

	while (d && found && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp"))
			continue;
		snprintf(path, len, "%s/%s", dir, e->d_name);
		if (!read_status(path, st) && st->vt == vt)
			found = 0;
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * Wait until the session at path reports a first frame later than t0;
 * its time in ms after t0, or -1 on timeout.
 */
static double wait_first_frame(const char *path, double t0, double deadline,
			       struct session_status *st)
{
	do {
		if (!read_status(path, st) && st->first_frame_ms >= t0)
			return st->first_frame_ms - t0;
		usleep(500);
	} while (now_ms() < deadline);
	return -1;
}

/* The card watched with -d: its first CRTC (std-VGA has one). */
struct card_watch {
	int fd;
	uint32_t crtc_id;
	uint32_t fb_before;
};

/* The framebuffer the CRTC scans out now, 0 for none or on error. */
static uint32_t crtc_fb(const struct card_watch *w)
{
	drmModeCrtc *crtc = drmModeGetCrtc(w->fd, w->crtc_id);
	uint32_t fb = crtc ? crtc->buffer_id : 0;

	drmModeFreeCrtc(crtc);
	return fb;
}

static int watch_open(const char *card, struct card_watch *w)
{
	drmModeRes *res;

	w->fd = open(card, O_RDWR | O_CLOEXEC);
	if (w->fd < 0) {
		fprintf(stderr, "kmsvt-switch: %s: %s\n", card, strerror(errno));
		return -1;
	}
	/*
	 * The first file opened on a card that has no master becomes its
	 * master (the console in front: nobody is).  A watcher must not hold
	 * the display the incoming session asks for: give it back at once.
	 */
	if (drmIsMaster(w->fd))
		drmDropMaster(w->fd);
	res = drmModeGetResources(w->fd);
	if (!res || !res->count_crtcs) {
		fprintf(stderr, "kmsvt-switch: %s: no CRTC\n", card);
		drmModeFreeResources(res);
		return -1;
	}
	w->crtc_id = res->crtcs[0];
	drmModeFreeResources(res);
	w->fb_before = crtc_fb(w);
	return 0;
}

/*
 * Wait until the CRTC scans out a framebuffer other than the one before
 * the request: the new owner's first commit.  Its time in ms after t0, or
 * -1 on timeout.
 */
static double wait_new_fb(const struct card_watch *w, double t0, double deadline)
{
	uint32_t fb;

	do {
		fb = crtc_fb(w);
		if (fb && fb != w->fb_before)
			return now_ms() - t0;
		usleep(500);
	} while (now_ms() < deadline);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "console", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "sessions", required_argument, NULL, 's' },
		{ "card", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *tty = "/dev/tty0", *sessions = "/run/kmsvt-session", *card = NULL;
	struct card_watch watch = { .fd = -1 };
	struct session_status st;
	char path[4096];
	double timeout = 5000, t0, t, frame, asked;
	int o, vt, from, from_mode, cur, fd;

	while ((o = getopt_long(argc, argv, "c:t:s:d:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			tty = optarg;
			break;
		case 't':
			if (tool_double("kmsvt-switch", o, optarg, 0, &timeout))
				return 2;
			break;
		case 's':
			sessions = optarg;
			break;
		case 'd':
			card = optarg;
			break;
		default:
			return tool_help(o, usage);
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
	from_mode = vt_mode(from);
	if (card && watch_open(card, &watch))
		return 1;
	t0 = now_ms();
	if (from != vt && ioctl(fd, VT_ACTIVATE, vt)) {
		fprintf(stderr, "kmsvt-switch: VT_ACTIVATE %d: %s\n", vt, strerror(errno));
		return 1;
	}
	asked = t0;
	while ((cur = active_vt(fd)) != vt && (t = now_ms()) - t0 < timeout) {
		if (cur < 0) {
			fprintf(stderr, "kmsvt-switch: VT_GETSTATE: %s\n", strerror(-cur));
			return 1;
		}
		/*
		 * A VT_SETMODE on the VT we leave cancels a pending switch: seatd
		 * does one when it tidies up after a session that died.  Ask
		 * again now and then, as a person would press the keys again.
		 */
		if (t - asked >= REASK_MS) {
			ioctl(fd, VT_ACTIVATE, vt);
			asked = t;
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
	revive_console(vt, from, from_mode);
	printf("vt %d -> %d: active after %.3f ms", from, vt, t);
	/* Between two text VTs the console keeps its framebuffer. */
	if (card && from != vt && (from_mode != KD_TEXT || vt_mode(vt) != KD_TEXT)) {
		frame = wait_new_fb(&watch, t0, t0 + timeout);
		if (frame < 0) {
			printf("\n");
			fprintf(stderr, "kmsvt-switch: %s got no new framebuffer within %.0f ms\n",
				card, timeout);
			return 1;
		}
		printf(", new framebuffer after %.3f ms", frame);
	}
	if (from == vt || session_on(sessions, vt, &st, path, sizeof(path))) {
		printf("\n");
		return 0;
	}
	frame = wait_first_frame(path, t0, t0 + timeout, &st);
	if (frame < 0) {
		printf("\n");
		fprintf(stderr, "kmsvt-switch: %s on vt %d showed no frame within %.0f ms\n",
			st.name, vt, timeout);
		return 1;
	}
	printf(", first frame of %s after %.3f ms\n", st.name, frame);
	return 0;
}
