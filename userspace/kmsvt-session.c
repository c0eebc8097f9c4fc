// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-session: a graphical session that takes part in fast user switching.
 *
 * It takes the seat through libseat (seatd or systemd-logind, whichever
 * runs), gets the DRM device from it and shows a labelled screen, its name
 * and a frame counter, double-buffered with page flips at vblank.  The seat
 * provider owns DRM master: on a VT switch away it drops master on its own
 * copy of our file and tells us (disable); we stop touching KMS and ack.  On
 * the way back (enable) master is ours again and we show our last frame with
 * one page flip, not a modeset: the mode is the one the previous owner left,
 * and when it is not ours the flip fails and only then do we set the mode.
 *
 * Every enable writes a status file (see --status) with the timestamp of
 * the first frame scanned out after it, the flip event's own, so that
 * kmsvt-switch can tell how long a switch took up to the picture.
 *
 * Text is drawn with the console's own font (KDFONTOP on our terminal or on
 * /dev/tty0), so a screen reader that knows the console font reads ours.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libseat.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/input.h>
#include <linux/kd.h>
#include <drm_fourcc.h>

#include "kms-util.h"
#include "session-status.h"
#include "tool.h"

#define MAX_KBDS	8	/* keyboards we listen to */
#define FONT_MAX	512	/* glyphs KDFONTOP may return */
#define FONT_STRIDE	32	/* bytes a glyph takes in its answer: 32 rows, up to 8 px */

struct font {
	unsigned int w, h, count;
	unsigned char data[FONT_MAX * FONT_STRIDE];
};

struct buf {
	uint32_t handle, fb_id;
	uint32_t *px;
	size_t size;
};

struct session {
	const char *name, *device, *status_dir;
	bool check_revoked;
	uint32_t plane_id, fb_prop;	/* for --check-revoked's atomic commit */
	struct libseat *seat;
	int dev_id, fd;
	bool enabled, pending_enable, flip_pending, shown;
	bool kbds_wanted;	/* open the keyboards when the loop next runs */
	bool kbds_stale;	/* revoked by a disable: close them there */
	int nkbd, kbd_id[MAX_KBDS], kbd_fd[MAX_KBDS];
	bool ctrl, alt;
	uint32_t conn_id, crtc_id, crtc_bit, bg;	/* crtc_bit: for possible_crtcs */
	drmModeModeInfo mode;
	struct buf buf[2];
	int front;		/* index of the buffer on screen (or last on it) */
	unsigned long frame, enables;
	unsigned int busy;	/* EBUSY retries of this enable's first flip */
	double flip_t;		/* when the pending flip was asked for */
	unsigned long flips;	/* flip events received */
	unsigned long early;	/* of those, stamped before their flip's request */
	double enable_t;	/* when the last enable arrived, CLOCK_MONOTONIC s */
	bool report_next;	/* the next flip event is the first after an enable */
	struct font font;
	bool have_font;
};

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-session --name NAME [-d DEVICE] [-s DIR] [--check-revoked]\n"
		"A graphical session for fast user switching: takes the seat through\n"
		"libseat (seatd or logind), gets the DRM device from it and shows NAME and\n"
		"a frame counter, page-flipped at every vblank.  When the seat is taken\n"
		"away (a VT switch) it stops drawing; when it comes back it shows its last\n"
		"frame again with a page flip, without a modeset.  Ctrl+Alt+Fn asks the\n"
		"seat for VT n.\n"
		"\n"
		"  -n, --name NAME      the name on the screen (letters, digits, -_.)\n"
		"  -d, --device PATH    DRM device (default: the first /dev/dri/cardN)\n"
		"  -s, --status DIR     after each enable write DIR/NAME with the VT and the\n"
		"                       time of the first frame shown (default\n"
		"                       /run/kmsvt-session); kmsvt-switch reads it\n"
		"      --check-revoked  on each disable, try a flip and a commit and report\n"
		"                       what the kernel answers (EACCES when the seat works)\n"
		"  -h, --help           this text\n"
		"\n"
		"LIBSEAT_BACKEND=seatd|logind picks the seat provider.  SIGINT or SIGTERM\n"
		"end the session.  Exit status 0 after a signal, 1 on a seat or device\n"
		"error, 2 for bad usage.\n");
}

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 32)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("-_.", *s)))
			return false;
	return true;
}

/* ---- the console's font and text drawing ---------------------------- */

static bool font_from(int fd, struct font *font)
{
	struct console_font_op op = {
		.op = KD_FONT_OP_GET, .width = 8, .height = 32,
		.charcount = FONT_MAX, .data = font->data,
	};

	if (ioctl(fd, KDFONTOP, &op))
		return false;
	font->w = op.width;
	font->h = op.height;
	font->count = op.charcount;
	return true;
}

/*
 * The kernel answers only for a VT in text mode, so this runs before the
 * seat is taken (which turns our VT to graphics).
 */
static bool load_font(struct font *font)
{
	int fd;
	bool ok;

	if (isatty(0) && font_from(0, font))
		return true;
	fd = open("/dev/tty0", O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = font_from(fd, font);
	close(fd);
	return ok;
}

/* Text at cell (col, row), fg on bg: whole cells, as the console draws. */
static void draw_text(struct session *s, struct buf *b, int col, int row, const char *text,
		      uint32_t fg, uint32_t bg)
{
	uint32_t pitch = s->mode.hdisplay;

	if (!s->have_font)
		return;
	for (; *text; text++, col++) {
		const unsigned char *g = s->font.data + (unsigned char)*text * FONT_STRIDE;
		unsigned int x0 = col * s->font.w, y0 = row * s->font.h;

		if ((unsigned char)*text >= s->font.count || x0 + s->font.w > s->mode.hdisplay ||
		    y0 + s->font.h > s->mode.vdisplay)
			continue;
		for (unsigned int y = 0; y < s->font.h; y++) {
			uint32_t *p = b->px + (y0 + y) * pitch + x0;

			for (unsigned int x = 0; x < s->font.w; x++)
				p[x] = (g[y] & (0x80 >> x)) ? fg : bg;
		}
	}
}

/* ---- the picture ------------------------------------------------------ */

#define FG	0xffffffu
#define ROW_NAME	2
#define ROW_FRAME	4

static void fill_rows(struct session *s, struct buf *b, unsigned int y0, unsigned int rows)
{
	uint32_t *p = b->px + y0 * s->mode.hdisplay;
	size_t n = (size_t)rows * s->mode.hdisplay;

	for (size_t i = 0; i < n; i++)
		p[i] = s->bg;
}

static void draw_counter(struct session *s, struct buf *b)
{
	char line[64];

	snprintf(line, sizeof(line), "frame %lu", s->frame);
	fill_rows(s, b, ROW_FRAME * s->font.h, s->font.h);
	draw_text(s, b, 2, ROW_FRAME, line, FG, s->bg);
}

static void draw_full(struct session *s, struct buf *b)
{
	char line[64];

	fill_rows(s, b, 0, s->mode.vdisplay);
	snprintf(line, sizeof(line), "kmsvt-session %s", s->name);
	draw_text(s, b, 2, ROW_NAME, line, FG, s->bg);
	draw_counter(s, b);
}

/* A dark colour of its own for each name, so a glance tells them apart. */
static uint32_t name_colour(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return (h & 0x7f7f7f) | 0x101010;
}

/* ---- KMS ---------------------------------------------------------------- */

static int pick_output(struct session *s)
{
	drmModeRes *res = drmModeGetResources(s->fd);
	int ret = -ENODEV;

	if (!res)
		return -errno ? -errno : -ENODEV;
	for (int i = 0; i < res->count_connectors && ret; i++) {
		drmModeConnector *c = drmModeGetConnector(s->fd, res->connectors[i]);
		drmModeEncoder *e;

		if (!c)
			continue;
		if (c->connection == DRM_MODE_CONNECTED && c->count_modes && c->count_encoders) {
			e = drmModeGetEncoder(s->fd, c->encoders[0]);
			for (int k = 0; e && k < res->count_crtcs; k++) {
				if (e->possible_crtcs & (1u << k)) {
					s->crtc_id = res->crtcs[k];
					s->crtc_bit = 1u << k;
					break;
				}
			}
			drmModeFreeEncoder(e);
			s->conn_id = c->connector_id;
			s->mode = c->modes[0];
			for (int m = 0; m < c->count_modes; m++)
				if (c->modes[m].type & DRM_MODE_TYPE_PREFERRED)
					s->mode = c->modes[m];
			ret = s->crtc_id ? 0 : -ENODEV;
		}
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return ret;
}

/* Our CRTC's primary plane and its FB_ID property, for try_revoked(). */
static void find_primary(struct session *s)
{
	drmModePlaneRes *pres;
	uint64_t type;

	if (drmSetClientCap(s->fd, DRM_CLIENT_CAP_ATOMIC, 1))
		return;
	pres = drmModeGetPlaneResources(s->fd);
	for (unsigned int i = 0; pres && i < pres->count_planes && !s->plane_id; i++) {
		drmModePlane *p = drmModeGetPlane(s->fd, pres->planes[i]);

		if (p && (p->possible_crtcs & s->crtc_bit) &&
		    prop_id(s->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) &&
		    type == DRM_PLANE_TYPE_PRIMARY) {
			s->plane_id = p->plane_id;
			s->fb_prop = prop_id(s->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID", NULL);
		}
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
}

static int make_buffers(struct session *s)
{
	for (int i = 0; i < 2; i++) {
		struct buf *b = &s->buf[i];
		struct drm_mode_create_dumb c;
		uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
		int ret = dumb_create(s->fd, s->mode.hdisplay, s->mode.vdisplay, 32, &c);

		if (ret)
			return ret;
		b->handle = c.handle;
		b->size = c.size;
		if (c.pitch != s->mode.hdisplay * 4u)
			return -EINVAL;	/* draw_text assumes packed rows */
		handles[0] = c.handle;
		pitches[0] = c.pitch;
		if (drmModeAddFB2(s->fd, s->mode.hdisplay, s->mode.vdisplay, DRM_FORMAT_XRGB8888,
				  handles, pitches, offsets, &b->fb_id, 0))
			return -errno;
		b->px = dumb_map(s->fd, c.handle, c.size, 0);
		if (!b->px)
			return -errno;
		draw_full(s, b);
	}
	return 0;
}

static void free_buffers(struct session *s)
{
	for (int i = 0; i < 2; i++) {
		struct buf *b = &s->buf[i];

		if (b->px)
			munmap(b->px, b->size);
		if (b->fb_id)
			drmModeRmFB(s->fd, b->fb_id);
		if (b->handle)
			dumb_destroy(s->fd, b->handle);
		memset(b, 0, sizeof(*b));
	}
}

static int flip_to(struct session *s, int idx)
{
	s->flip_t = now();
	if (drmModePageFlip(s->fd, s->crtc_id, s->buf[idx].fb_id, DRM_MODE_PAGE_FLIP_EVENT, s))
		return -errno;
	s->flip_pending = true;
	s->front = idx;
	return 0;
}

/* Is the CRTC on, in our mode?  Then a page flip is all a handover needs. */
static bool crtc_in_our_mode(struct session *s)
{
	drmModeCrtc *crtc = drmModeGetCrtc(s->fd, s->crtc_id);
	bool same = crtc && crtc->mode_valid &&
		    crtc->mode.hdisplay == s->mode.hdisplay &&
		    crtc->mode.vdisplay == s->mode.vdisplay &&
		    crtc->mode.clock == s->mode.clock;

	drmModeFreeCrtc(crtc);
	return same;
}

/*
 * Show our front buffer after an enable: a page flip when the previous
 * owner (the console, another session) left the CRTC in our mode, else
 * our mode is set (a real modeset).
 */
static int show_again(struct session *s)
{
	uint32_t conn = s->conn_id;
	int ret;

	if (s->shown && crtc_in_our_mode(s)) {
		ret = flip_to(s, s->front);
		if (ret != -EINVAL && ret != -ENOSPC)
			return ret;
	}
	if (drmModeSetCrtc(s->fd, s->crtc_id, s->buf[s->front].fb_id, 0, 0, &conn, 1, &s->mode))
		return -errno;
	s->shown = true;
	/* SetCrtc sends no event: the next flip's event reports the picture. */
	return flip_to(s, s->front ^ 1);
}

/* The state of the VT we are on, for the status file. */
static int active_vt(void)
{
	char buf[32] = "";
	int vt = 0;
	FILE *f = fopen("/sys/class/tty/tty0/active", "r");

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			sscanf(buf, "tty%d", &vt);
		fclose(f);
	}
	return vt;
}

static void write_status(struct session *s, double frame_t)
{
	char path[4096], tmp[4200];
	struct session_status st;
	FILE *f;

	if (!s->status_dir || !*s->status_dir)
		return;
	mkdir(s->status_dir, 0755);
	snprintf(path, sizeof(path), "%s/%s", s->status_dir, s->name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	st.pid = getpid();
	st.vt = active_vt();
	st.enables = s->enables;
	st.enable_ms = s->enable_t * 1e3;
	st.first_frame_ms = frame_t * 1e3;
	snprintf(st.name, sizeof(st.name), "%s", s->name);
	session_status_write(f, &st);
	fclose(f);
	rename(tmp, path);
}

static void remove_status(struct session *s)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", s->status_dir, s->name);
	unlink(path);
}

static void page_flip_done(int fd, unsigned int seq, unsigned int sec, unsigned int usec,
			   void *data)
{
	struct session *s = data;
	double t = sec + usec / 1e6;

	(void)fd;
	(void)seq;
	s->flip_pending = false;
	/*
	 * A frame cannot be shown before it was asked for: count events that
	 * say otherwise (times are whole microseconds, truncated).
	 */
	s->flips++;
	s->early += t < s->flip_t - 1e-6;
	if (s->report_next) {
		s->report_next = false;
		double ms = 1e3 * (t - s->enable_t);

		printf("%s: enable %lu: first frame %.3f ms after the enable (%u busy); "
		       "%lu flips, %lu stamped before their request\n",
		       s->name, s->enables, ms, s->busy, s->flips, s->early);
		fflush(stdout);
		write_status(s, t);
	}
	if (!s->enabled)
		return;
	/* Draw the next frame into the buffer that just left the screen. */
	s->frame++;
	draw_counter(s, &s->buf[s->front ^ 1]);
	if (flip_to(s, s->front ^ 1) == -EACCES)
		s->enabled = false;	/* the disable is on its way */
}

/* ---- the seat ------------------------------------------------------------ */

/*
 * --check-revoked: a page flip and a real (not test-only) atomic commit of
 * our other buffer, as a session that ignored its disable would send them.
 * With the seat provider doing its job both fail with EACCES and the
 * screen keeps the new owner's picture.
 */
static void try_revoked(struct session *s)
{
	uint32_t fb = s->buf[s->front ^ 1].fb_id;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int flip, commit = -ENOTSUP;

	flip = drmModePageFlip(s->fd, s->crtc_id, fb, DRM_MODE_PAGE_FLIP_EVENT, s) ? -errno : 0;
	if (!flip)
		s->flip_pending = true;
	if (req && s->fb_prop && drmModeAtomicAddProperty(req, s->plane_id, s->fb_prop, fb) > 0)
		commit = drmModeAtomicCommit(s->fd, req, 0, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	printf("%s: disabled: flip %s, commit %s\n", s->name, flip ? strerror(-flip) : "accepted",
	       commit ? strerror(-commit) : "accepted");
	fflush(stdout);
}

/* ---- the keyboard: Ctrl+Alt+Fn switches, as in a compositor ----------- */

/*
 * Our VT's keyboard is off (the seat provider set K_OFF), so the kernel no
 * longer switches on Alt+Fn: a session reads the keyboards itself, through
 * the seat (which revokes them on disable), and asks the seat to switch.
 */
static void close_keyboards(struct session *s)
{
	for (int i = 0; i < s->nkbd; i++) {
		libseat_close_device(s->seat, s->kbd_id[i]);
		close(s->kbd_fd[i]);
	}
	s->nkbd = 0;
	s->ctrl = s->alt = false;
}

static bool is_keyboard(int fd)
{
	unsigned long keys[KEY_MAX / (8 * sizeof(long)) + 1] = { 0 };

	if (ioctl(fd, EVIOCGBIT(EV_KEY, sizeof(keys)), keys) < 0)
		return false;
	return keys[KEY_F1 / (8 * sizeof(long))] & (1UL << (KEY_F1 % (8 * sizeof(long))));
}

static void open_keyboards(struct session *s)
{
	char path[64];

	s->kbds_wanted = false;
	for (int i = 0; i < 32 && s->nkbd < MAX_KBDS; i++) {
		int fd, id;

		snprintf(path, sizeof(path), "/dev/input/event%d", i);
		if (access(path, F_OK))
			continue;
		id = libseat_open_device(s->seat, path, &fd);
		if (id < 0)
			continue;
		if (!is_keyboard(fd)) {
			libseat_close_device(s->seat, id);
			close(fd);
			continue;
		}
		s->kbd_id[s->nkbd] = id;
		s->kbd_fd[s->nkbd++] = fd;
	}
}

/* F1-F10 and F11-F12 are not one range of key codes. */
static int fkey_number(unsigned int code)
{
	if (code >= KEY_F1 && code <= KEY_F10)
		return code - KEY_F1 + 1;
	if (code == KEY_F11 || code == KEY_F12)
		return code - KEY_F11 + 11;
	return 0;
}

static void read_keyboard(struct session *s, int fd)
{
	struct input_event ev[16];
	ssize_t n = read(fd, ev, sizeof(ev));

	for (ssize_t i = 0; i < n / (ssize_t)sizeof(ev[0]); i++) {
		int vt = fkey_number(ev[i].code);

		if (ev[i].type != EV_KEY)
			continue;
		if (ev[i].code == KEY_LEFTCTRL || ev[i].code == KEY_RIGHTCTRL)
			s->ctrl = ev[i].value != 0;
		else if (ev[i].code == KEY_LEFTALT || ev[i].code == KEY_RIGHTALT)
			s->alt = ev[i].value != 0;
		else if (ev[i].value == 1 && s->ctrl && s->alt && vt)
			libseat_switch_session(s->seat, vt);
	}
}

static void enable_seat(struct libseat *seat, void *data)
{
	struct session *s = data;

	(void)seat;
	s->enabled = true;
	s->pending_enable = true;
	s->busy = 0;
	s->kbds_wanted = true;
	s->enables++;
	s->enable_t = now();
}

/*
 * From here on the seat provider has dropped our master: nothing we submit
 * reaches the screen.  A flip already queued still completes (its event
 * comes later and is only counted).  Ack at once: a slow ack delays the
 * next session.
 */
static void disable_seat(struct libseat *seat, void *data)
{
	struct session *s = data;

	s->enabled = false;
	s->pending_enable = false;
	s->kbds_wanted = false;
	if (s->check_revoked && s->shown)
		try_revoked(s);
	libseat_disable_seat(seat);
	/* Not from inside libseat's dispatch: the main loop closes them. */
	s->kbds_stale = true;
}

static const struct libseat_seat_listener seat_listener = {
	.enable_seat = enable_seat,
	.disable_seat = disable_seat,
};

static int open_device(struct session *s)
{
	char path[64];

	for (int i = 0; !s->device && i < 16; i++) {
		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		if (!access(path, F_OK))
			s->device = strdup(path);
	}
	if (!s->device)
		return -ENOENT;
	s->dev_id = libseat_open_device(s->seat, s->device, &s->fd);
	return s->dev_id < 0 ? -errno : 0;
}

static int setup(struct session *s)
{
	uint64_t cap = 0;
	int ret;

	while (!s->enabled && !quit)
		if (libseat_dispatch(s->seat, -1) < 0 && errno != EINTR)
			return -errno;
	ret = open_device(s);
	if (ret) {
		fprintf(stderr, "kmsvt-session: %s: %s\n", s->device ? s->device : "/dev/dri/card*",
			strerror(-ret));
		return ret;
	}
	if (drmGetCap(s->fd, DRM_CAP_DUMB_BUFFER, &cap) || !cap || pick_output(s)) {
		fprintf(stderr, "kmsvt-session: %s is not a KMS device with a connected output\n",
			s->device);
		return -ENODEV;
	}
	s->bg = name_colour(s->name);
	if (s->check_revoked)
		find_primary(s);
	ret = make_buffers(s);
	if (ret)
		fprintf(stderr, "kmsvt-session: buffers for %ux%u: %s\n", s->mode.hdisplay,
			s->mode.vdisplay, strerror(-ret));
	return ret;
}

static int run(struct session *s)
{
	drmEventContext ev = { .version = 2, .page_flip_handler = page_flip_done };
	struct pollfd pfd[2 + MAX_KBDS] = {
		{ .fd = libseat_get_fd(s->seat), .events = POLLIN },
		{ .fd = s->fd, .events = POLLIN },
	};
	int ret, nkbd;

	printf("%s: %ux%u on %s\n", s->name, s->mode.hdisplay, s->mode.vdisplay, s->device);
	fflush(stdout);
	while (!quit) {
		int timeout = -1;

		if (s->pending_enable && !s->flip_pending) {
			ret = show_again(s);
			if (ret == -EBUSY) {
				/* The last owner's flip has not landed yet: soon. */
				timeout = 2;
				s->busy++;
			} else {
				s->pending_enable = false;
				s->report_next = !ret;
				/*
				 * -EACCES: disabled again meanwhile; anything else
				 * waits for the next enable, the session lives on.
				 */
				if (ret && ret != -EACCES)
					fprintf(stderr, "kmsvt-session: showing the picture: %s\n",
						strerror(-ret));
			}
		}
		if (s->kbds_stale) {
			s->kbds_stale = false;
			close_keyboards(s);
		}
		if (s->kbds_wanted && s->enabled)
			open_keyboards(s);
		nkbd = s->nkbd;
		for (int i = 0; i < nkbd; i++)
			pfd[2 + i] = (struct pollfd){ .fd = s->kbd_fd[i], .events = POLLIN };
		if (poll(pfd, 2 + nkbd, timeout) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* libseat reads its events; a hang-up is the seat provider gone. */
		if ((pfd[0].revents & POLLIN) && libseat_dispatch(s->seat, 0) < 0) {
			fprintf(stderr, "kmsvt-session: the seat went away: %s\n", strerror(errno));
			return -errno;
		}
		if (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			fprintf(stderr, "kmsvt-session: the seat went away (seat provider gone)\n");
			return -ENOTCONN;
		}
		if (pfd[1].revents & POLLIN)
			drmHandleEvent(s->fd, &ev);
		/* The dispatch above may have closed them (a disable). */
		for (int i = 0; i < nkbd && !s->kbds_stale; i++)
			if (pfd[2 + i].revents & POLLIN)
				read_keyboard(s, s->kbd_fd[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "device", required_argument, NULL, 'd' },
		{ "status", required_argument, NULL, 's' },
		{ "check-revoked", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct session *s = calloc(1, sizeof(*s));
	struct sigaction sa = { .sa_handler = on_signal };
	int o, ret;

	if (!s)
		return 1;
	s->status_dir = "/run/kmsvt-session";
	s->fd = -1;
	while ((o = getopt_long(argc, argv, "n:d:s:h", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			s->name = optarg;
			break;
		case 'd':
			s->device = optarg;
			break;
		case 's':
			s->status_dir = optarg;
			break;
		case 'r':
			s->check_revoked = true;
			break;
		default:
			return tool_help(o, usage);
		}
	}
	if (optind != argc || !s->name) {
		usage(stderr);
		return 2;
	}
	if (!valid_name(s->name)) {
		fprintf(stderr, "kmsvt-session: '%s' is not a name: 1-32 letters, digits, -_.\n",
			s->name);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	s->have_font = load_font(&s->font);
	if (!s->have_font)
		fprintf(stderr, "kmsvt-session: no console font (KDFONTOP): drawing without text\n");
	libseat_set_log_level(LIBSEAT_LOG_LEVEL_ERROR);
	s->seat = libseat_open_seat(&seat_listener, s);
	if (!s->seat) {
		fprintf(stderr, "kmsvt-session: no seat: %s (is seatd or logind running?)\n",
			strerror(errno));
		return 1;
	}
	ret = setup(s);
	if (!ret)
		ret = run(s);
	close_keyboards(s);
	free_buffers(s);
	remove_status(s);
	if (s->dev_id > 0)
		libseat_close_device(s->seat, s->dev_id);
	libseat_close_seat(s->seat);
	return ret ? 1 : 0;
}
