// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test: exercise a KMS driver through the standard ioctls only
 * (atomic, page flip events, vblank waits, GEM auth, PRIME, bad input).
 *
 * Prints one line a check, "ok NAME[: detail]" or "not ok NAME: detail",
 * diagnostics on "# " lines, and last "N passed, N failed"; exits 1 if a
 * check failed.  Needs to be DRM master (the first opener of the card) and
 * root for the auth group (it drops CAP_SYS_ADMIN to open an
 * unauthenticated file).  Nothing is restored at exit: the kernel's fbdev
 * client takes the display back when the master closes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kms-util.h"

#define MAX_FLIPS 10000
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct props {
	uint32_t crtc_mode_id, crtc_active, conn_crtc_id;
	uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
};

struct buf {
	uint32_t w, h, handle, pitch, fb;
	uint64_t size;
};

struct dev {
	const char *path;
	int fd;
	uint32_t conn, crtc, plane;
	drmModeModeInfo mode;		/* the connector's preferred mode */
	drmModeModeInfo alt;		/* another, smaller mode (or mode again) */
	drmModeModeInfo big;		/* the largest mode offered */
	double refresh;			/* exact refresh of mode, Hz */
	struct props p;
	struct buf scan[2];		/* our scanout buffers, at mode's size */
	int active;			/* we did a modeset with scan[] */
	int cur;			/* index of the scanned-out scan[] */
	int flips;			/* -n */
	double tol;			/* -t, relative */
};

static int n_pass, n_fail, n_skip;

/* ---- reporting --------------------------------------------------------- */

static void vresult(int pass, const char *name, const char *fmt, va_list ap)
{
	printf("%s %s", pass ? "ok" : "not ok", name);
	if (fmt && *fmt) {
		printf(": ");
		vprintf(fmt, ap);
	}
	printf("\n");
	fflush(stdout);
	if (pass)
		n_pass++;
	else
		n_fail++;
}

__attribute__((format(printf, 3, 4)))
static int check(int pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(pass, name, fmt, ap);
	va_end(ap);
	return pass;
}

/* Like check(), but the detail is printed only on failure. */
__attribute__((format(printf, 3, 4)))
static int checkq(int pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(pass, name, pass ? NULL : fmt, ap);
	va_end(ap);
	return pass;
}

static void skip(const char *name, const char *why)
{
	printf("ok %s # SKIP %s\n", name, why);
	fflush(stdout);
	n_pass++;
	n_skip++;
}

__attribute__((format(printf, 1, 2)))
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* "-EINVAL" for -22, "0" for success. */
static const char *err(int ret)
{
	static const struct { int e; const char *n; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { ENODEV, "ENODEV" }, { EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { ENXIO, "ENXIO" },
	};
	static char bufs[8][32];
	static unsigned int n;
	char *buf = bufs[n++ % 8];

	if (ret == 0)
		return "0";
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (-ret == names[i].e) {
			snprintf(buf, sizeof(bufs[0]), "-%s", names[i].n);
			return buf;
		}
	snprintf(buf, sizeof(bufs[0]), "%d", ret);
	return buf;
}

/* ret must be one of the negated errnos listed (0-terminated), e.g. EINVAL, 0. */
/*
 * With KMSVT_TEST_SYNC=DIR, stop at a named point so that someone outside
 * (the test harness, which reads the screen) can look: create DIR/NAME and
 * wait up to a minute for DIR/NAME.ack.  Without it, go straight on.
 */
static void checkpoint(const char *name)
{
	const char *dir = getenv("KMSVT_TEST_SYNC");
	char path[512];
	struct stat st;
	int fd;

	if (!dir)
		return;
	fflush(stdout);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/%s.ack", dir, name);
	for (int i = 0; i < 3000 && stat(path, &st); i++)
		usleep(20000);
}

static int expect(const char *name, int ret, ...)
{
	char want[128] = "";
	va_list ap;
	int e;

	va_start(ap, ret);
	while ((e = va_arg(ap, int))) {
		if (ret == -e) {
			va_end(ap);
			return check(1, name, "%s", err(ret));
		}
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
			 *want ? " or " : "", err(-e));
	}
	va_end(ap);
	return check(0, name, "got %s, want %s", err(ret), want);
}

/* ---- small helpers ----------------------------------------------------- */

static int add_fb(int fd, uint32_t w, uint32_t h, uint32_t handle, uint32_t pitch,
		  uint32_t offset, uint32_t *fb)
{
	uint32_t handles[4] = { handle }, pitches[4] = { pitch }, offsets[4] = { offset };

	return drmModeAddFB2(fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches, offsets, fb, 0);
}

static void fill(int fd, const struct buf *b, uint32_t color)
{
	uint32_t *p = dumb_map(fd, b->handle, b->size, 0);

	if (!p)
		return;
	for (uint64_t i = 0; i < b->size / 4; i++)
		p[i] = color;
	munmap(p, b->size);
}

/* A w x h XRGB8888 dumb buffer with a framebuffer; returns -errno. */
static int buf_create(int fd, uint32_t w, uint32_t h, struct buf *b)
{
	struct drm_mode_create_dumb c;
	int ret = dumb_create(fd, w, h, 32, &c);

	memset(b, 0, sizeof(*b));
	if (ret)
		return ret;
	*b = (struct buf){ .w = w, .h = h, .handle = c.handle, .pitch = c.pitch,
			   .size = c.size };
	ret = add_fb(fd, w, h, c.handle, c.pitch, 0, &b->fb);
	if (ret) {
		dumb_destroy(fd, c.handle);
		b->handle = 0;
	}
	return ret;
}

static void buf_destroy(int fd, struct buf *b)
{
	if (b->fb)
		drmModeRmFB(fd, b->fb);
	if (b->handle)
		dumb_destroy(fd, b->handle);
	memset(b, 0, sizeof(*b));
}

/* A plausible mode with CVT-ish blanking at 60 Hz. */
static drmModeModeInfo make_mode(uint16_t w, uint16_t h)
{
	drmModeModeInfo m = {
		.hdisplay = w, .hsync_start = w + 48, .hsync_end = w + 80, .htotal = w + 160,
		.vdisplay = h, .vsync_start = h + 3, .vsync_end = h + 9, .vtotal = h + 30,
		.vrefresh = 60, .flags = DRM_MODE_FLAG_NHSYNC | DRM_MODE_FLAG_PVSYNC,
		.type = DRM_MODE_TYPE_USERDEF,
	};

	m.clock = (uint32_t)((uint64_t)m.htotal * m.vtotal * 60 / 1000);
	snprintf(m.name, sizeof(m.name), "%ux%u", w, h);
	return m;
}

/* ---- atomic requests --------------------------------------------------- */

static void add_plane(drmModeAtomicReq *req, const struct dev *d, uint32_t fb,
		      uint32_t sw, uint32_t sh, uint32_t cw, uint32_t ch)
{
	uint32_t pl = d->plane;

	drmModeAtomicAddProperty(req, pl, d->p.fb_id, fb);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_id, fb ? d->crtc : 0);
	drmModeAtomicAddProperty(req, pl, d->p.src_x, 0);
	drmModeAtomicAddProperty(req, pl, d->p.src_y, 0);
	drmModeAtomicAddProperty(req, pl, d->p.src_w, (uint64_t)sw << 16);
	drmModeAtomicAddProperty(req, pl, d->p.src_h, (uint64_t)sh << 16);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_x, 0);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_y, 0);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_w, cw);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_h, ch);
}

/*
 * Commit a full modeset to mode m with fb scanned out from (0,0), sw x sh
 * source pixels onto the whole mode.  Returns -errno.
 */
static int commit_mode(const struct dev *d, const drmModeModeInfo *m, uint32_t fb,
		       uint32_t sw, uint32_t sh, uint32_t flags)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob;
	int ret;

	ret = drmModeCreatePropertyBlob(d->fd, m, sizeof(*m), &blob);
	if (ret) {
		drmModeAtomicFree(req);
		return ret;
	}
	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_mode_id, blob);
	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 1);
	drmModeAtomicAddProperty(req, d->conn, d->p.conn_crtc_id, d->crtc);
	add_plane(req, d, fb, sw, sh, m->hdisplay, m->vdisplay);
	ret = drmModeAtomicCommit(d->fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(d->fd, blob);
	return ret;
}

/* Turn the whole pipe off (active == 0: only ACTIVE=0, mode and fb kept). */
static int commit_off(const struct dev *d, int keep_mode)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 0);
	if (!keep_mode) {
		drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_mode_id, 0);
		drmModeAtomicAddProperty(req, d->conn, d->p.conn_crtc_id, 0);
		drmModeAtomicAddProperty(req, d->plane, d->p.fb_id, 0);
		drmModeAtomicAddProperty(req, d->plane, d->p.crtc_id, 0);
	}
	ret = drmModeAtomicCommit(d->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	return ret;
}

/* A flip of the primary plane to fb (same geometry). */
static int commit_flip(const struct dev *d, uint32_t fb, uint32_t flags, uint64_t data)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	drmModeAtomicAddProperty(req, d->plane, d->p.fb_id, fb);
	ret = drmModeAtomicCommit(d->fd, req, flags, (void *)(uintptr_t)data);
	drmModeAtomicFree(req);
	return ret;
}

/*
 * A closed client's buffers go back to VRAM only when the last commit that
 * used them is cleaned up, a frame or two later: retry -ENOSPC for a while.
 */
static int buf_create_wait(int fd, uint32_t w, uint32_t h, struct buf *b)
{
	int ret, tries = 0;

	while ((ret = buf_create(fd, w, h, b)) == -ENOSPC && tries++ < 40)
		usleep(25000);
	if (!ret && tries)
		diag("VRAM for a %ux%u buffer came back after %d ms", w, h, tries * 25);
	return ret;
}

/* Our modeset with scan[0], unless it is already up.  Returns -errno. */
static int need_active(struct dev *d)
{
	int ret;

	if (d->active)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (d->scan[i].fb)
			continue;
		ret = buf_create_wait(d->fd, d->mode.hdisplay, d->mode.vdisplay, &d->scan[i]);
		if (ret)
			return ret;
		fill(d->fd, &d->scan[i], i ? 0x00204080 : 0x00804020);
	}
	ret = commit_mode(d, &d->mode, d->scan[0].fb, d->mode.hdisplay, d->mode.vdisplay, 0);
	d->active = !ret;
	d->cur = 0;
	return ret;
}

static void release_scanout(struct dev *d)
{
	commit_off(d, 0);
	buf_destroy(d->fd, &d->scan[0]);
	buf_destroy(d->fd, &d->scan[1]);
	d->active = 0;
}

static int active_or_fail(struct dev *d, const char *name)
{
	int ret = need_active(d);

	if (ret)
		check(0, name, "cannot set up our modeset: %s", err(ret));
	return ret;
}

/* CRTC's current fb id and mode. */
static uint32_t crtc_fb(const struct dev *d, drmModeModeInfo *mode)
{
	drmModeCrtc *c = drmModeGetCrtc(d->fd, d->crtc);
	uint32_t fb = 0;

	if (mode)
		memset(mode, 0, sizeof(*mode));
	if (!c)
		return 0;
	fb = c->buffer_id;
	if (mode && c->mode_valid)
		*mode = c->mode;
	drmModeFreeCrtc(c);
	return fb;
}

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

static int within(double got, double want, double tol)
{
	return want > 0 && dabs(got - want) <= tol * want;
}

/* ---- page flip events -------------------------------------------------- */

struct flip_rec {
	uint64_t data;
	unsigned int seq, crtc;
	double ts;
};

struct flips {
	uint64_t sent[2 * MAX_FLIPS + 16];	/* user_data, in commit order */
	struct flip_rec got[2 * MAX_FLIPS + 16];	/* events, in arrival order */
	int nsent, ngot, overflow;
};

static struct flips *flips_cur;

static void on_flip(int fd, unsigned int seq, unsigned int sec, unsigned int usec,
		    unsigned int crtc, void *data)
{
	struct flips *f = flips_cur;
	struct flip_rec *r;

	(void)fd;
	if (!f)
		return;
	if (f->ngot >= (int)ARRAY_SIZE(f->got)) {
		f->overflow++;
		return;
	}
	r = &f->got[f->ngot++];
	*r = (struct flip_rec){ .data = (uintptr_t)data, .seq = seq, .crtc = crtc,
				.ts = sec + usec / 1e6 };
}

/* Read events until f has want of them; -ETIMEDOUT if none for timeout_ms. */
static int wait_events(int fd, struct flips *f, int want, int timeout_ms)
{
	drmEventContext ev = { .version = 3, .page_flip_handler2 = on_flip };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	flips_cur = f;
	while (f->ngot < want) {
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? -errno : -ETIMEDOUT;
		if (drmHandleEvent(fd, &ev))
			return -EIO;
	}
	return 0;
}

/* ---- group: atomic ----------------------------------------------------- */

static void atomic_valid(struct dev *d, const struct buf *t)
{
	const drmModeModeInfo *a = &d->alt;
	int ret;

	ret = commit_mode(d, &d->mode, t->fb, d->mode.hdisplay, d->mode.vdisplay,
			  DRM_MODE_ATOMIC_TEST_ONLY);
	check(!ret, "atomic_test_only_valid", "%ux%u: %s", d->mode.hdisplay,
	      d->mode.vdisplay, err(ret));
	ret = commit_mode(d, a, t->fb, a->hdisplay, a->vdisplay, DRM_MODE_ATOMIC_TEST_ONLY);
	check(!ret, "atomic_test_only_valid_other_mode", "%ux%u from a %ux%u fb: %s",
	      a->hdisplay, a->vdisplay, t->w, t->h, err(ret));
}

static void atomic_invalid(struct dev *d, const struct buf *t)
{
	drmModeModeInfo m1366 = make_mode(1366, 768), huge = make_mode(8192, 8192);
	uint32_t w = d->mode.hdisplay, h = d->mode.vdisplay;
	struct buf b;
	int ret;

	/* Source half the size of the destination: scaling, which we cannot do. */
	ret = commit_mode(d, &d->mode, t->fb, w / 2, h / 2, DRM_MODE_ATOMIC_TEST_ONLY);
	expect("atomic_test_only_scaling", ret, EINVAL, ERANGE, 0);

	ret = buf_create(d->fd, 1366, 768, &b);
	if (check(!ret, "atomic_1366_fb", "1366x768 fb: %s", err(ret))) {
		ret = commit_mode(d, &m1366, b.fb, 1366, 768, DRM_MODE_ATOMIC_TEST_ONLY);
		expect("atomic_test_only_width_1366", ret, EINVAL, 0);
	}
	buf_destroy(d->fd, &b);

	/* The mode check comes before the plane's: this fails on the mode. */
	ret = commit_mode(d, &huge, t->fb, w, h, DRM_MODE_ATOMIC_TEST_ONLY);
	expect("atomic_test_only_8192x8192", ret, EINVAL, 0);
}

static void group_atomic(struct dev *d)
{
	drmModeModeInfo m0, m1;
	uint32_t fb0, fb1;
	struct buf t;
	int ret;

	if (d->scan[0].fb)
		release_scanout(d);	/* room in VRAM for the test buffers */
	fb0 = crtc_fb(d, &m0);
	ret = buf_create(d->fd, d->mode.hdisplay, d->mode.vdisplay, &t);
	if (!check(!ret, "atomic_setup", "fb %ux%u: %s", d->mode.hdisplay,
		   d->mode.vdisplay, err(ret)))
		return;
	atomic_valid(d, &t);
	atomic_invalid(d, &t);
	fb1 = crtc_fb(d, &m1);
	check(fb0 == fb1 && !memcmp(&m0, &m1, sizeof(m0)), "atomic_test_only_changes_nothing",
	      "crtc fb %u -> %u, mode %ux%u -> %ux%u", fb0, fb1, m0.hdisplay, m0.vdisplay,
	      m1.hdisplay, m1.vdisplay);
	buf_destroy(d->fd, &t);
}

/* ---- group: flip ------------------------------------------------------- */

struct probe {
	int busy, raced, other, last_err;
};

/*
 * One flip to the other buffer, then, while it is pending, a second
 * nonblocking commit, which the atomic helpers refuse with -EBUSY (unless
 * the first already completed).  Then wait for every event.
 */
static int flip_once(struct dev *d, struct flips *f, struct probe *pr)
{
	uint32_t flags = DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	int next = !d->cur, ret;
	uint64_t data = f->nsent + 1;

	ret = commit_flip(d, d->scan[next].fb, flags, data);
	if (ret)
		return ret;
	f->sent[f->nsent++] = data;
	d->cur = next;
	ret = commit_flip(d, d->scan[next].fb, flags, data + 1);
	if (ret == -EBUSY) {
		pr->busy++;
	} else if (ret == 0) {
		f->sent[f->nsent++] = data + 1;
		pr->raced++;
	} else {
		pr->other++;
		pr->last_err = ret;
	}
	return wait_events(d->fd, f, f->nsent, 2000);
}

static void flip_check_events(const struct dev *d, const struct flips *f)
{
	int order = -1, seq = -1, ts = -1, crtc = -1, gaps = 0;

	check(f->ngot == f->nsent && !f->overflow, "flip_events", "%d events for %d commits",
	      f->ngot, f->nsent);
	for (int i = 0; i < f->ngot; i++) {
		if (order < 0 && (i >= f->nsent || f->got[i].data != f->sent[i]))
			order = i;
		if (crtc < 0 && f->got[i].crtc != d->crtc)
			crtc = i;
		if (i == 0)
			continue;
		if (seq < 0 && (int)(f->got[i].seq - f->got[i - 1].seq) <= 0)
			seq = i;
		if (ts < 0 && f->got[i].ts <= f->got[i - 1].ts)
			ts = i;
		gaps += f->got[i].seq - f->got[i - 1].seq > 1;
	}
	checkq(order < 0, "flip_event_order", "event %d: user_data %llu, committed %llu", order,
	       order < 0 ? 0 : (unsigned long long)f->got[order].data,
	       order < 0 || order >= f->nsent ? 0 : (unsigned long long)f->sent[order]);
	checkq(seq < 0, "flip_sequence_increases", "event %d: sequence %u after %u", seq,
	       seq > 0 ? f->got[seq].seq : 0, seq > 0 ? f->got[seq - 1].seq : 0);
	if (gaps)
		diag("flips: %d of %d went more than one vblank after the previous", gaps, f->ngot);
	checkq(ts < 0, "flip_timestamp_increases", "event %d: %.6f after %.6f", ts,
	       ts > 0 ? f->got[ts].ts : 0, ts > 0 ? f->got[ts - 1].ts : 0);
	checkq(crtc < 0, "flip_event_crtc", "event %d: crtc %u, want %u", crtc,
	       crtc < 0 ? d->crtc : f->got[crtc].crtc, d->crtc);
}

/* Median time between consecutive events: one frame, if no flip misses its vblank. */
static double median_interval(const struct flips *f)
{
	double *dt = calloc(f->ngot, sizeof(*dt)), m;

	if (!dt)
		return 0;
	for (int i = 1; i < f->ngot; i++)
		dt[i - 1] = f->got[i].ts - f->got[i - 1].ts;
	qsort(dt, f->ngot - 1, sizeof(*dt), cmp_double);
	m = dt[(f->ngot - 1) / 2];
	free(dt);
	return m;
}

/*
 * The flip rate (from the median interval, so that a host hiccup does not
 * count) and the vblank counter (which must count vblanks a late timer
 * missed, too) against the mode's refresh rate.
 */
static void flip_check_rate(const struct dev *d, const struct flips *f, double wall)
{
	const struct flip_rec *a = &f->got[0], *b = &f->got[f->ngot > 0 ? f->ngot - 1 : 0];
	double span, rate, counter;

	if (f->ngot < 2 || b->ts <= a->ts) {
		check(0, "flip_rate", "only %d events", f->ngot);
		return;
	}
	span = b->ts - a->ts;
	rate = 1 / median_interval(f);
	counter = (b->seq - a->seq) / span;
	diag("flips: %d events in %.3f s; %.2f Hz by the median interval, %.2f Hz on average",
	     f->ngot, span, rate, (f->ngot - 1) / span);
	diag("flips: %.2f Hz by wall clock; vblank counter %.2f Hz; mode refresh %.3f Hz",
	     f->nsent / wall, counter, d->refresh);
	check(within(rate, d->refresh, d->tol), "flip_rate",
	      "%.2f Hz, mode %.2f Hz (tolerance %.0f%%)", rate, d->refresh, d->tol * 100);
	check(within(counter, d->refresh, d->tol), "flip_vblank_counter_rate",
	      "%u vblanks in %.3f s: %.2f Hz", b->seq - a->seq, span, counter);
}

static void group_flip(struct dev *d)
{
	struct flips *f = calloc(1, sizeof(*f));
	struct probe pr = { 0 };
	int ret = 0, i;
	double t0;

	if (!f || active_or_fail(d, "flip_setup")) {
		free(f);
		return;
	}
	t0 = now();
	for (i = 0; i < d->flips && !ret; i++)
		ret = flip_once(d, f, &pr);
	check(!ret, "flip_commits", "%d flips%s%s", i, ret ? ", failed: " : "",
	      ret ? err(ret) : "");
	check(!pr.other && pr.busy > 0, "flip_second_commit_ebusy",
	      "%d -EBUSY, %d accepted (first flip already done), %d other (last %s)",
	      pr.busy, pr.raced, pr.other, err(pr.last_err));
	flip_check_events(d, f);
	flip_check_rate(d, f, now() - t0);
	check(crtc_fb(d, NULL) == d->scan[d->cur].fb, "flip_final_fb",
	      "crtc shows fb %u, last flip %u", crtc_fb(d, NULL), d->scan[d->cur].fb);
	free(f);
}

/* ---- group: vblank ----------------------------------------------------- */

static int crtc_index(const struct dev *d)
{
	drmModeRes *res = drmModeGetResources(d->fd);
	int idx = 0;

	for (int i = 0; res && i < res->count_crtcs; i++)
		if (res->crtcs[i] == d->crtc)
			idx = i;
	drmModeFreeResources(res);
	return idx;
}

static int wait_vbl_type(const struct dev *d, unsigned int type, unsigned int n, drmVBlank *v)
{
	unsigned int high = crtc_index(d) << DRM_VBLANK_HIGH_CRTC_SHIFT;

	memset(v, 0, sizeof(*v));
	v->request.type = type | (high & DRM_VBLANK_HIGH_CRTC_MASK);
	v->request.sequence = n;
	return drmWaitVBlank(d->fd, v) ? -errno : 0;
}

static int wait_vbl(const struct dev *d, unsigned int n, drmVBlank *v)
{
	return wait_vbl_type(d, DRM_VBLANK_RELATIVE, n, v);
}

static double vbl_ts(const drmVBlank *v)
{
	return v->reply.tval_sec + v->reply.tval_usec / 1e6;
}

static void vblank_relative(struct dev *d)
{
	drmVBlank a, b;
	int ret;

	ret = wait_vbl(d, 1, &a);
	check(!ret, "vblank_relative_1", "%s, sequence %u", err(ret), a.reply.sequence);
	ret = wait_vbl(d, 10, &b);
	check(!ret && (int)(b.reply.sequence - a.reply.sequence) >= 10, "vblank_relative_10",
	      "%s, sequence %u -> %u, %.1f ms", err(ret), a.reply.sequence, b.reply.sequence,
	      (vbl_ts(&b) - vbl_ts(&a)) * 1000);
}

static void vblank_timing(struct dev *d)
{
	double want = 60 / d->refresh, t0, wall;
	drmVBlank a, b;
	int ret;

	/*
	 * Absolute: a relative wait counts from when the ioctl runs, one
	 * period later if this process was descheduled across a vblank.
	 */
	ret = wait_vbl(d, 1, &a);
	t0 = now();
	ret = ret ? ret : wait_vbl_type(d, DRM_VBLANK_ABSOLUTE, a.reply.sequence + 60, &b);
	wall = now() - t0;
	if (ret) {
		check(0, "vblank_60", "%s", err(ret));
		return;
	}
	diag("60 vblanks: %.1f ms wall clock, %.1f ms by vblank timestamps, sequence +%d;"
	     " want %.1f ms (%.3f Hz)", wall * 1000, (vbl_ts(&b) - vbl_ts(&a)) * 1000,
	     (int)(b.reply.sequence - a.reply.sequence), want * 1000, d->refresh);
	check(b.reply.sequence - a.reply.sequence == 60, "vblank_60", "sequence %u -> %u",
	      a.reply.sequence, b.reply.sequence);
	check(within(wall, want, d->tol), "vblank_60_timing",
	      "%.1f ms, want %.1f ms (%.2f Hz vs %.2f Hz)", wall * 1000, want * 1000, 60 / wall,
	      d->refresh);
}

static void group_vblank(struct dev *d)
{
	if (active_or_fail(d, "vblank_setup"))
		return;
	vblank_relative(d);
	vblank_timing(d);
}

/* ---- group: auth ------------------------------------------------------- */

/* Raise or drop CAP_SYS_ADMIN in the effective set (root counts as authenticated). */
static int sysadmin(int on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct cap[2];
	uint32_t bit = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (syscall(SYS_capget, &hdr, cap))
		return -errno;
	if (!(cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted & bit))
		return -EPERM;
	if (on)
		cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective |= bit;
	else
		cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~bit;
	return syscall(SYS_capset, &hdr, cap) ? -errno : 0;
}

/* A second open that is neither master nor (as root would be) authenticated. */
static int open_unauth(const char *path)
{
	int dropped = sysadmin(0) == 0, fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (dropped)
		sysadmin(1);
	return fd;
}

static int authenticated(int fd)
{
	unsigned long magic, iocs;
	int auth = -1, pid, uid;

	if (drmGetClient(fd, 0, &auth, &pid, &uid, &magic, &iocs))
		return -1;
	return auth;
}

static int flink(int fd, uint32_t handle, uint32_t *name)
{
	struct drm_gem_flink f = { .handle = handle };
	int ret = xioctl(fd, DRM_IOCTL_GEM_FLINK, &f);

	*name = f.name;
	return ret;
}

static int gem_open(int fd, uint32_t name, uint32_t *handle, uint64_t *size)
{
	struct drm_gem_open o = { .name = name };
	int ret = xioctl(fd, DRM_IOCTL_GEM_OPEN, &o);

	*handle = o.handle;
	if (size)
		*size = o.size;
	return ret;
}

static void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	if (handle)
		xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/*
 * Write through fd a's mapping of ha, read through fd b's of hb, and the
 * other way round.  Returns 0, -errno, or 1 for a mismatch.
 */
static int share_check(int fa, uint32_t ha, int fb, uint32_t hb, size_t size)
{
	uint32_t *pa = dumb_map(fa, ha, size, 0), *pb = dumb_map(fb, hb, size, 0);
	int ret = 0;

	if (!pa || !pb) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; i < size / 4; i += 1021)
		pa[i] = 0xa5000000 | i;
	for (size_t i = 0; i < size / 4 && !ret; i += 1021)
		ret = pb[i] != (0xa5000000 | i);
	for (size_t i = 7; i < size / 4; i += 1021)
		pb[i] = 0x5a000000 | i;
	for (size_t i = 7; i < size / 4 && !ret; i += 1021)
		ret = pa[i] != (0x5a000000 | i);
out:
	if (pa)
		munmap(pa, size);
	if (pb)
		munmap(pb, size);
	return ret;
}

static const char *share_err(int ret)
{
	return ret == 1 ? "contents differ" : err(ret);
}

/* Unauthenticated fd2: flink and GEM_OPEN refused; the master's flink works. */
static void auth_refused(struct dev *d, int fd2, uint32_t mh, uint32_t *name)
{
	struct drm_mode_create_dumb c;
	uint32_t n2 = 0, h2 = 0;
	int ret;

	ret = dumb_create(fd2, 64, 64, 32, &c);
	if (check(!ret, "auth_unauth_dumb_create", "%s", err(ret))) {
		ret = flink(fd2, c.handle, &n2);
		expect("auth_unauth_flink_refused", ret, EACCES, 0);
		dumb_destroy(fd2, c.handle);
	}
	ret = flink(d->fd, mh, name);
	check(!ret && *name, "auth_master_flink", "%s, name %u", err(ret), *name);
	ret = gem_open(fd2, *name, &h2, NULL);
	expect("auth_unauth_gem_open_refused", ret, EACCES, 0);
	if (!ret)
		gem_close(fd2, h2);
}

/* After drmAuthMagic, fd2 opens the master's buffer and sees its contents. */
static void auth_granted(struct dev *d, int fd2, uint32_t mh, uint32_t name, uint64_t size)
{
	uint32_t h2 = 0, n2 = 0;
	uint64_t sz = 0;
	drm_magic_t magic;
	int ret;

	ret = drmGetMagic(fd2, &magic) ? -errno : 0;
	ret = ret ? ret : (drmAuthMagic(d->fd, magic) ? -errno : 0);
	check(!ret && authenticated(fd2) == 1, "auth_magic", "%s, authenticated %d", err(ret),
	      authenticated(fd2));
	ret = gem_open(fd2, name, &h2, &sz);
	if (!check(!ret && sz == size, "auth_gem_open_after_auth", "%s, size %llu of %llu",
		   err(ret), (unsigned long long)sz, (unsigned long long)size))
		return;
	ret = share_check(d->fd, mh, fd2, h2, size);
	check(!ret, "auth_gem_open_shares_memory", "%s", share_err(ret));
	ret = flink(fd2, h2, &n2);
	check(!ret && n2 == name, "auth_flink_after_auth", "%s, name %u (master's %u)", err(ret),
	      n2, name);
	gem_close(fd2, h2);
}

static void group_auth(struct dev *d)
{
	struct drm_mode_create_dumb c;
	uint32_t name = 0;
	int fd2, ret;

	fd2 = open_unauth(d->path);
	if (!checkq(fd2 >= 0, "auth_open_second", "%s", strerror(errno)))
		return;
	ret = dumb_create(d->fd, 256, 64, 32, &c);
	if (check(!ret && authenticated(fd2) == 0 && drmIsMaster(fd2) == 0, "auth_setup",
		  "buffer %s; second fd authenticated %d, master %d", err(ret),
		  authenticated(fd2), drmIsMaster(fd2))) {
		auth_refused(d, fd2, c.handle, &name);
		if (name)
			auth_granted(d, fd2, c.handle, name, c.size);
	}
	if (!ret)
		dumb_destroy(d->fd, c.handle);
	close(fd2);
}

/* ---- group: prime ------------------------------------------------------ */

/* Map the dma-buf itself; the driver may not allow it (6.1 needs gem_prime_mmap). */
static int prime_dmabuf_mmap(struct dev *d, int pfd, uint32_t h, size_t size)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	uint32_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0), *q;
	int bad = 0;

	if (p == MAP_FAILED) {
		char why[64];

		snprintf(why, sizeof(why), "mmap of the dma-buf: %s", err(-errno));
		if (errno == ENOSYS || errno == ENODEV || errno == EOPNOTSUPP)
			skip("prime_dmabuf_mmap", why);
		else
			check(0, "prime_dmabuf_mmap", "%s", why);
		return 0;
	}
	q = dumb_map(d->fd, h, size, 0);
	ioctl(pfd, DMA_BUF_IOCTL_SYNC, &sync);
	for (size_t i = 3; q && i < size / 4; i += 997)
		p[i] = 0xc3000000 | i;
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	ioctl(pfd, DMA_BUF_IOCTL_SYNC, &sync);
	for (size_t i = 3; q && i < size / 4 && !bad; i += 997)
		bad = q[i] != (0xc3000000 | i);
	check(q && !bad, "prime_dmabuf_mmap", "%s", !q ? "no dumb mapping" :
	      bad ? "dma-buf mapping and GEM mapping differ" : "same memory as the GEM mapping");
	munmap(p, size);
	if (q)
		munmap(q, size);
	return 1;
}

/* Writes page i of a buffer (0..3) with a pattern only it has. */
static void mark_pages(uint32_t *p, long pg, int pages)
{
	for (int k = 0; k < pages; k++)
		for (long i = 0; i < pg / 4; i++)
			p[k * pg / 4 + i] = (0x70000000 + (k << 20)) | i;
}

static int page_is(const uint32_t *p, long pg, int k)
{
	return p[0] == (0x70000000 + ((unsigned int)k << 20)) &&
	       p[pg / 4 - 1] == ((0x70000000 + ((unsigned int)k << 20)) | (pg / 4 - 1));
}

/* The DRM core maps GEM objects whole only: a mapping at +1 page is refused. */
static void gem_mmap_partial(struct dev *d, uint32_t h, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint32_t *all = dumb_map(d->fd, h, size, 0), *part;
	int ret;

	if (!all) {
		check(0, "gem_mmap_partial", "whole mapping: %s", err(-errno));
		return;
	}
	mark_pages(all, pg, 2);
	part = dumb_map(d->fd, h, pg, pg);
	ret = part ? 0 : -errno;
	if (part)
		check(page_is(part, pg, 1), "gem_mmap_partial", "mapping at +%ld: %s", pg,
		      page_is(part, pg, 1) ? "page 1" : "wrong page");
	else
		expect("gem_mmap_partial", ret, EINVAL, 0);
	if (part)
		munmap(part, pg);
	munmap(all, size);
}

/* A dma-buf mapping at +1 page must show page 1 of the buffer. */
static void prime_dmabuf_mmap_offset(struct dev *d, int pfd, uint32_t h, size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint32_t *all = dumb_map(d->fd, h, size, 0), *part;

	if (!all) {
		check(0, "prime_dmabuf_mmap_offset", "GEM mapping: %s", err(-errno));
		return;
	}
	mark_pages(all, pg, 3);
	part = mmap(NULL, pg, PROT_READ, MAP_SHARED, pfd, 2 * pg);
	if (part == MAP_FAILED) {
		check(0, "prime_dmabuf_mmap_offset", "mmap at +%ld: %s", 2 * pg, err(-errno));
	} else {
		check(page_is(part, pg, 2), "prime_dmabuf_mmap_offset", "mapping at +%ld shows %s",
		      2 * pg, page_is(part, pg, 2) ? "page 2" : page_is(part, pg, 0) ?
		      "page 0 (offset ignored)" : "something else");
		munmap(part, pg);
	}
	munmap(all, size);
}

/* fd2 imports the dma-buf; the two handles share memory; self-import dedups. */
static void prime_import(struct dev *d, int pfd, uint32_t h, size_t size)
{
	uint32_t h2 = 0, h3 = 0;
	int fd2 = open(d->path, O_RDWR | O_CLOEXEC), ret;

	if (!checkq(fd2 >= 0, "prime_open_second", "%s", strerror(errno)))
		return;
	ret = drmPrimeFDToHandle(fd2, pfd, &h2) ? -errno : 0;
	if (check(!ret, "prime_import", "%s", err(ret))) {
		ret = share_check(d->fd, h, fd2, h2, size);
		check(!ret, "prime_mmap_shared", "%s", share_err(ret));
		gem_close(fd2, h2);
	}
	ret = drmPrimeFDToHandle(d->fd, pfd, &h3) ? -errno : 0;
	check(!ret && h3 == h, "prime_self_import", "%s, handle %u, exporter's %u", err(ret),
	      h3, h);
	/* Only the dma-buf keeps the buffer now: import it again. */
	ret = drmPrimeFDToHandle(fd2, pfd, &h2) ? -errno : 0;
	check(!ret, "prime_reimport", "%s", err(ret));
	close(fd2);
}

static void group_prime(struct dev *d)
{
	struct drm_mode_create_dumb c;
	int pfd = -1, ret;
	off_t len;

	ret = dumb_create(d->fd, 256, 256, 32, &c);
	if (!check(!ret, "prime_setup", "dumb buffer: %s", err(ret)))
		return;
	gem_mmap_partial(d, c.handle, c.size);
	ret = drmPrimeHandleToFD(d->fd, c.handle, DRM_CLOEXEC | DRM_RDWR, &pfd) ? -errno : 0;
	if (!check(!ret, "prime_export", "%s", err(ret))) {
		dumb_destroy(d->fd, c.handle);
		return;
	}
	len = lseek(pfd, 0, SEEK_END);
	check(len == (off_t)c.size, "prime_dmabuf_size", "%lld, buffer %llu", (long long)len,
	      (unsigned long long)c.size);
	lseek(pfd, 0, SEEK_SET);
	if (prime_dmabuf_mmap(d, pfd, c.handle, c.size))
		prime_dmabuf_mmap_offset(d, pfd, c.handle, c.size);
	else
		skip("prime_dmabuf_mmap_offset", "no dma-buf mmap");
	prime_import(d, pfd, c.handle, c.size);
	dumb_destroy(d->fd, c.handle);
	close(pfd);
}

/* ---- group: bad -------------------------------------------------------- */

static void bad_dumb(struct dev *d)
{
	static const struct {
		const char *name;
		uint32_t w, h, bpp;
		int e1, e2, e3;
	} cases[] = {
		{ "bad_dumb_zero_width", 0, 64, 32, EINVAL, 0, 0 },
		{ "bad_dumb_zero_height", 64, 0, 32, EINVAL, 0, 0 },
		{ "bad_dumb_zero_bpp", 64, 64, 0, EINVAL, 0, 0 },
		{ "bad_dumb_huge_bpp", 64, 64, 0xffffffff, EINVAL, 0, 0 },
		{ "bad_dumb_bigger_than_vram", 16384, 16384, 32, ENOSPC, ENOMEM, EINVAL },
		{ "bad_dumb_overflow", 0xffffffff, 0xffffffff, 32, EINVAL, 0, 0 },
		{ "bad_dumb_overflow_size", 65536, 65536, 32, EINVAL, 0, 0 },
		{ "bad_dumb_pitch_overflow", 0x3ffffff1, 1, 32, EINVAL, ENOSPC, 0 },
	};
	struct drm_mode_create_dumb c;
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		ret = dumb_create(d->fd, cases[i].w, cases[i].h, cases[i].bpp, &c);
		expect(cases[i].name, ret, cases[i].e1, cases[i].e2, cases[i].e3, 0);
		if (!ret)
			dumb_destroy(d->fd, c.handle);
	}
}

static void bad_addfb(struct dev *d)
{
	struct drm_mode_create_dumb c;
	uint32_t fb = 0;
	int ret;

	ret = dumb_create(d->fd, 64, 64, 32, &c);
	if (!check(!ret, "bad_addfb_setup", "64x64 buffer: %s", err(ret)))
		return;
	ret = add_fb(d->fd, 64, 64, c.handle, c.pitch, 0, &fb);
	check(!ret, "bad_addfb_valid_control", "pitch %u: %s", c.pitch, err(ret));
	if (!ret)
		drmModeRmFB(d->fd, fb);
	ret = add_fb(d->fd, 64, 64, c.handle, c.pitch, (uint32_t)c.size, &fb);
	expect("bad_addfb_offset_past_end", ret, EINVAL, 0);
	ret = add_fb(d->fd, 64, 64, c.handle, c.pitch, 4096, &fb);
	expect("bad_addfb_offset_overruns", ret, EINVAL, 0);
	ret = add_fb(d->fd, 64, 64, c.handle, c.pitch * 2, 0, &fb);
	expect("bad_addfb_pitch_past_end", ret, EINVAL, 0);
	/* pitch * height overflows 32 bits: the core says -ERANGE */
	ret = add_fb(d->fd, 64, 64, c.handle, 0xfffffff0, 0, &fb);
	expect("bad_addfb_pitch_huge", ret, EINVAL, ERANGE, 0);
	ret = add_fb(d->fd, 64, 64, c.handle, c.pitch / 2, 0, &fb);
	expect("bad_addfb_pitch_too_small", ret, EINVAL, 0);
	ret = add_fb(d->fd, 128, 128, c.handle, c.pitch * 2, 0, &fb);
	expect("bad_addfb_bigger_than_bo", ret, EINVAL, 0);
	ret = add_fb(d->fd, 64, 64, 0xdeadbeef, c.pitch, 0, &fb);
	expect("bad_addfb_bad_handle", ret, ENOENT, EINVAL, 0);
	dumb_destroy(d->fd, c.handle);
}

static void bad_double_free(struct dev *d)
{
	struct buf b;
	int ret = buf_create(d->fd, 64, 64, &b);

	if (!check(!ret, "bad_double_free_setup", "%s", err(ret)))
		return;
	ret = drmModeRmFB(d->fd, b.fb);
	check(!ret, "bad_rmfb_once", "%s", err(ret));
	expect("bad_rmfb_twice", drmModeRmFB(d->fd, b.fb), ENOENT, EINVAL, 0);
	ret = dumb_destroy(d->fd, b.handle);
	check(!ret, "bad_destroy_dumb_once", "%s", err(ret));
	expect("bad_destroy_dumb_twice", dumb_destroy(d->fd, b.handle), EINVAL, ENOENT, 0);
}

static void bad_mode_commit(struct dev *d)
{
	drmModeModeInfo huge = make_mode(8192, 8192);
	uint32_t fb = d->scan[d->cur].fb;
	int ret;

	ret = commit_mode(d, &huge, fb, d->mode.hdisplay, d->mode.vdisplay, 0);
	expect("bad_commit_mode_bigger_than_vram", ret, EINVAL, 0);
	check(crtc_fb(d, NULL) == fb, "bad_commit_changes_nothing", "crtc fb %u, want %u",
	      crtc_fb(d, NULL), fb);
}

static void bad_flip_off(struct dev *d)
{
	static struct flips f;
	uint32_t fb = d->scan[!d->cur].fb;
	drmVBlank v;
	int ret;

	memset(&f, 0, sizeof(f));
	ret = commit_off(d, 1);
	if (!check(!ret, "bad_flip_setup", "ACTIVE=0: %s", err(ret)))
		return;
	d->active = 0;
	ret = drmModePageFlip(d->fd, d->crtc, fb, DRM_MODE_PAGE_FLIP_EVENT, (void *)1);
	expect("bad_page_flip_inactive_crtc", ret, EINVAL, 0);
	ret = commit_off(d, 0);
	check(!ret, "bad_flip_setup", "crtc off: %s", err(ret));
	ret = drmModePageFlip(d->fd, d->crtc, fb, DRM_MODE_PAGE_FLIP_EVENT, (void *)2);
	/* With no fb on the plane the core answers -EBUSY before any check. */
	expect("bad_page_flip_disabled_crtc", ret, EINVAL, EBUSY, 0);
	expect("bad_wait_vblank_disabled_crtc", wait_vbl(d, 1, &v), EINVAL, 0);
	ret = wait_events(d->fd, &f, 1, 200);
	check(ret == -ETIMEDOUT, "bad_no_event_for_failed_flip", "%d events", f.ngot);
}

/* A second master commits a flip with event, and closes before it completes. */
static int close_pending_once(const struct dev *d, int delay_us)
{
	struct dev d3 = *d;
	int ret;

	memset(d3.scan, 0, sizeof(d3.scan));
	d3.active = 0;
	if (drmDropMaster(d->fd))
		return -errno;
	d3.fd = open(d->path, O_RDWR | O_CLOEXEC);
	ret = d3.fd < 0 ? -errno : 0;
	if (!ret && drmSetClientCap(d3.fd, DRM_CLIENT_CAP_ATOMIC, 1))
		ret = -errno;
	ret = ret ? ret : need_active(&d3);
	ret = ret ? ret : commit_flip(&d3, d3.scan[1].fb,
				      DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, 1);
	if (delay_us)
		usleep(delay_us);
	if (d3.fd >= 0)
		close(d3.fd);
	if (drmSetMaster(d->fd))
		ret = ret ? ret : -errno;
	return ret;
}

static void bad_close_pending(struct dev *d)
{
	struct flips *f = calloc(1, sizeof(*f));
	int ret = 0, i;

	release_scanout(d);	/* VRAM for the other master's buffers */
	for (i = 0; i < 6 && !ret; i++)
		ret = close_pending_once(d, i * 4000);
	check(!ret, "bad_close_with_flip_pending", "%d rounds%s%s", i, ret ? ", failed: " : "",
	      ret ? err(ret) : "");
	ret = need_active(d);
	check(!ret, "bad_commit_after_close", "%s", err(ret));
	if (ret || !f) {
		free(f);
		return;
	}
	ret = commit_flip(d, d->scan[1].fb, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, 7);
	f->sent[f->nsent++] = 7;
	ret = ret ? ret : wait_events(d->fd, f, 1, 2000);
	d->cur = ret ? d->cur : 1;
	check(!ret && f->got[0].data == 7, "bad_flip_after_close", "%s", err(ret));
	free(f);
}

static void group_bad(struct dev *d)
{
	bad_dumb(d);
	bad_addfb(d);
	bad_double_free(d);
	if (!active_or_fail(d, "bad_setup")) {
		bad_mode_commit(d);
		bad_flip_off(d);
	}
	bad_close_pending(d);
}

/* ---- group: mem -------------------------------------------------------- */

#define MEM_MAX_BUFS 4096

/*
 * The hog, a process of its own with its own open of the card: big-mode
 * buffers until refused (more than VRAM holds, then a clean error), some of
 * them touched.  Says "r" on @ready when full, frees all on a word from @go.
 * Returns the number of failed checks.
 */
static int mem_hog(const struct dev *d, int ready, int go)
{
	const drmModeModeInfo *m = &d->big;
	struct drm_mode_create_dumb *c = calloc(MEM_MAX_BUFS, sizeof(*c));
	int fd = open(d->path, O_RDWR | O_CLOEXEC);
	int n = 0, ret = 0, bad = 0;
	uint64_t total = 0;
	char tok;

	if (!c || fd < 0)
		return 1;
	while (n < MEM_MAX_BUFS && !(ret = dumb_create(fd, m->hdisplay, m->vdisplay, 32, &c[n])))
		total += c[n++].size;
	expect("mem_alloc_refused", n < MEM_MAX_BUFS ? ret : -1, ENOMEM, ENOSPC, 0);
	check(1, "mem_alloc_total", "%d buffers of %ux%u, %llu MiB", n, m->hdisplay,
	      m->vdisplay, (unsigned long long)(total >> 20));
	/* The first, a middle and the last are real memory, each its own. */
	for (int k = 0; k < 3 && n; k++) {
		int i = k == 0 ? 0 : k == 1 ? n / 2 : n - 1;
		uint32_t *p = dumb_map(fd, c[i].handle, c[i].size, 0);

		if (!p) {
			bad++;
			continue;
		}
		bad += p[0] != 0 || p[c[i].size / 4 - 1] != 0;
		p[0] = 0x5eed0000 + i;
		p[c[i].size / 4 - 1] = ~p[0];
		bad += p[0] != 0x5eed0000u + i || p[c[i].size / 4 - 1] != ~(0x5eed0000u + i);
		munmap(p, c[i].size);
	}
	check(!bad, "mem_alloc_usable", "%d of 3 sampled buffers not zeroed or not writable", bad);
	fflush(stdout);
	if (write(ready, "r", 1) != 1 || read(go, &tok, 1) != 1)
		n_fail++;
	while (n)
		dumb_destroy(fd, c[--n].handle);
	free(c);
	close(fd);
	return n_fail;
}

/*
 * While another client holds all the memory there is, this one, whose
 * buffers were there before, flips on as if nothing happened.
 */
static void mem_until_refused(struct dev *d)
{
	static struct flips f;
	int ready[2], go[2], status, ret = 0;
	pid_t pid;
	char tok;

	if (active_or_fail(d, "mem_hog_setup"))
		return;
	fflush(stdout);
	if (pipe(ready) || pipe(go)) {
		check(0, "mem_hog_setup", "%s", strerror(errno));
		return;
	}
	pid = fork();
	if (!pid)
		_exit(mem_hog(d, ready[1], go[0]));
	ret = read(ready[0], &tok, 1) == 1 ? 0 : -EPIPE;
	memset(&f, 0, sizeof(f));
	for (int k = 0; !ret && k < 30; k++) {
		ret = commit_flip(d, d->scan[!d->cur].fb,
				  DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, k + 1);
		d->cur = ret ? d->cur : !d->cur;
		f.sent[f.nsent++] = k + 1;
		ret = ret ? ret : wait_events(d->fd, &f, k + 1, 2000);
	}
	check(!ret && f.ngot == 30, "mem_other_client_flips", "%d of 30 flips while memory is "
	      "full: %s", f.ngot, err(ret));
	if (write(go[1], "g", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status), "mem_hog_client", "exit status %#x",
	      status);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

/* Word i of pattern @seed: unique per word and per pattern. */
static uint32_t pat(uint32_t seed, uint64_t i)
{
	return (uint32_t)(i * 2654435761u) ^ seed;
}

static uint64_t pat_mismatch(const volatile uint32_t *p, uint64_t words, uint32_t seed)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < words; i++)
		bad += p[i] != pat(seed, i);
	return bad;
}

static uint64_t count_nonzero(const volatile uint32_t *p, uint64_t words)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < words; i++)
		n += p[i] != 0;
	return n;
}

static void pat_write(volatile uint32_t *p, uint64_t words, uint32_t seed)
{
	for (uint64_t i = 0; i < words; i++)
		p[i] = pat(seed, i);
}

static int show(struct dev *d, uint32_t fb)
{
	return commit_flip(d, fb, 0, 0);
}

/*
 * One mapping of buffer x, held while x is shown (moved into VRAM), pushed
 * out by enough other buffers shown after it (evicted), and shown again:
 * every byte read through the mapping is x's own at each step.
 */
static void mem_mmap_across_moves(struct dev *d)
{
	uint32_t w = d->mode.hdisplay, h = d->mode.vdisplay;
	struct buf x, other[4];
	volatile uint32_t *p;
	uint64_t words, bad;
	int ret, i;

	if (active_or_fail(d, "mem_mmap_setup"))
		return;
	ret = buf_create(d->fd, w, h, &x);
	if (!check(!ret, "mem_mmap_setup", "buffer: %s", err(ret)))
		return;
	p = dumb_map(d->fd, x.handle, x.size, 0);
	words = x.size / 4;
	if (!check(p != NULL, "mem_mmap_setup", "mmap failed")) {
		buf_destroy(d->fd, &x);
		return;
	}
	bad = count_nonzero(p, words);
	check(!bad, "mem_new_buffer_zero", "%llu words not zero", (unsigned long long)bad);
	pat_write(p, words, 0x1111);
	ret = show(d, x.fb);
	bad = pat_mismatch(p, words, 0x1111);
	check(!ret && !bad, "mem_mmap_after_move_in", "%s, %llu words differ", err(ret),
	      (unsigned long long)bad);
	pat_write(p, words, 0x2222);

	/* More than VRAM holds goes on screen after x: x must leave VRAM. */
	for (i = 0; i < 4 && !ret; i++) {
		ret = buf_create(d->fd, w, h, &other[i]);
		if (!ret)
			fill(d->fd, &other[i], 0x00102030 * (i + 1));
		ret = ret ? ret : show(d, other[i].fb);
	}
	bad = pat_mismatch(p, words, 0x2222);
	check(!ret && !bad, "mem_mmap_after_eviction", "%s, %llu words differ", err(ret),
	      (unsigned long long)bad);
	pat_write(p, words, 0x3333);
	ret = show(d, x.fb);
	bad = pat_mismatch(p, words, 0x3333);
	check(!ret && !bad, "mem_mmap_after_move_back", "%s, %llu words differ", err(ret),
	      (unsigned long long)bad);
	checkpoint("moved_back");
	ret = ret ? ret : show(d, d->scan[d->cur].fb);
	while (i--)
		buf_destroy(d->fd, &other[i]);
	munmap((void *)p, x.size);
	buf_destroy(d->fd, &x);
}

/* An untouched new buffer scanned out is black: nobody's old pixels. */
static void mem_new_buffer_shown(struct dev *d)
{
	struct buf b;
	uint32_t *p;
	uint64_t nonzero = 0;
	int ret;

	if (active_or_fail(d, "mem_new_setup"))
		return;
	ret = buf_create(d->fd, d->mode.hdisplay, d->mode.vdisplay, &b);
	ret = ret ? ret : show(d, b.fb);
	p = ret ? NULL : dumb_map(d->fd, b.handle, b.size, 0);
	if (p)
		nonzero = count_nonzero(p, b.size / 4);
	check(p && !nonzero, "mem_new_buffer_shown_is_zero", "%s, %llu words not zero",
	      err(ret), (unsigned long long)nonzero);
	checkpoint("new_buffer_black");
	if (p)
		munmap(p, b.size);
	show(d, d->scan[d->cur].fb);
	buf_destroy(d->fd, &b);
}

/* The primary plane off on an active CRTC: allowed, black; and back on. */
static void mem_plane_off(struct dev *d)
{
	drmModeAtomicReq *req;
	int ret;

	if (active_or_fail(d, "plane_off_setup"))
		return;
	req = drmModeAtomicAlloc();
	drmModeAtomicAddProperty(req, d->plane, d->p.fb_id, 0);
	drmModeAtomicAddProperty(req, d->plane, d->p.crtc_id, 0);
	ret = drmModeAtomicCommit(d->fd, req, 0, NULL);
	drmModeAtomicFree(req);
	check(!ret, "plane_off_crtc_on", "%s", err(ret));
	checkpoint("plane_off");
	req = drmModeAtomicAlloc();
	add_plane(req, d, d->scan[0].fb, d->mode.hdisplay, d->mode.vdisplay, d->mode.hdisplay,
		  d->mode.vdisplay);
	ret = drmModeAtomicCommit(d->fd, req, 0, NULL);
	drmModeAtomicFree(req);
	d->cur = 0;
	check(!ret, "plane_on_again", "%s", err(ret));
	checkpoint("plane_on");
}

/* Timings no monitor has: refused by mode validation, not run. */
static void mem_bad_timings(struct dev *d)
{
	drmModeModeInfo m = make_mode(d->mode.hdisplay, d->mode.vdisplay);
	int ret;

	if (active_or_fail(d, "bad_timing_setup"))
		return;
	m.clock = INT32_MAX;
	ret = commit_mode(d, &m, d->scan[d->cur].fb, m.hdisplay, m.vdisplay,
			  DRM_MODE_ATOMIC_TEST_ONLY);
	expect("bad_timing_clock_int_max", ret, EINVAL, 0);
	m = make_mode(d->mode.hdisplay, d->mode.vdisplay);
	m.htotal = m.hsync_end;
	m.vtotal = m.vsync_end;
	m.clock = 0x7fffffff / 1000 * 999;
	ret = commit_mode(d, &m, d->scan[d->cur].fb, m.hdisplay, m.vdisplay,
			  DRM_MODE_ATOMIC_TEST_ONLY);
	expect("bad_timing_vrefresh_overflow", ret, EINVAL, 0);
	m = make_mode(d->mode.hdisplay, d->mode.vdisplay);
	m.clock = 1;
	ret = commit_mode(d, &m, d->scan[d->cur].fb, m.hdisplay, m.vdisplay,
			  DRM_MODE_ATOMIC_TEST_ONLY);
	expect("bad_timing_refresh_below_1hz", ret, EINVAL, 0);
	check(crtc_fb(d, NULL) == d->scan[d->cur].fb, "bad_timing_changes_nothing", "%s", "");
}

static void group_mem(struct dev *d)
{
	mem_until_refused(d);
	mem_new_buffer_shown(d);
	mem_mmap_across_moves(d);
	mem_plane_off(d);
	mem_bad_timings(d);
}

/* ---- group: turns ------------------------------------------------------ */

#define TURNS 4
#define TURN_FLIPS 60

/* Client i's colour: one per client, easy to tell apart on screen. */
static const uint32_t turn_colors[TURNS] = { 0x00c02020, 0x0020c020, 0x002020c0, 0x00c0c020 };

/*
 * One client's turn: master, its mode with buffer A, 60 vsynced flips
 * between B and A (ending on A), then the screen is looked at, and master
 * is dropped for the next one.  Returns the number of failed checks.
 */
static int turn_run(struct dev *c, int i)
{
	static struct flips f;
	char name[32];
	double t0, wall, span;
	int ret, bad = 0;

	memset(&f, 0, sizeof(f));
	ret = drmSetMaster(c->fd) ? -errno : 0;
	ret = ret ? ret : commit_mode(c, &c->mode, c->scan[0].fb, c->mode.hdisplay,
				     c->mode.vdisplay, 0);
	snprintf(name, sizeof(name), "turns_%d_modeset", i);
	bad += !check(!ret, name, "%s", err(ret));
	t0 = now();
	for (int k = 0; !ret && k < TURN_FLIPS; k++) {
		ret = commit_flip(c, c->scan[!(k & 1)].fb,
				  DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, k + 1);
		f.sent[f.nsent++] = k + 1;
		ret = ret ? ret : wait_events(c->fd, &f, k + 1, 2000);
	}
	wall = now() - t0;
	snprintf(name, sizeof(name), "turns_%d_flips", i);
	bad += !check(!ret && f.ngot == TURN_FLIPS, name, "%d flip events: %s", f.ngot, err(ret));
	/*
	 * Vsynced: one vblank apart each (sequence), at the refresh rate
	 * (event timestamps), and never faster than it (wall clock, which
	 * also counts the time to the first event, so only as a bound).
	 */
	ret = 0;
	for (int k = 1; k < f.ngot; k++)
		ret += f.got[k].seq != f.got[k - 1].seq + 1;
	span = f.ngot > 1 ? f.got[f.ngot - 1].ts - f.got[0].ts : 0;
	snprintf(name, sizeof(name), "turns_%d_vsync", i);
	bad += !check(!ret && span > 0 && within((f.ngot - 1) / span, c->refresh, c->tol) &&
		      TURN_FLIPS / wall <= c->refresh * (1 + c->tol), name,
		      "%.2f flips/s by event time, %.1f by wall clock, refresh %.2f Hz, "
		      "%d sequence gaps", span > 0 ? (f.ngot - 1) / span : 0, TURN_FLIPS / wall,
		      c->refresh, ret);
	snprintf(name, sizeof(name), "turn_%d", i);
	checkpoint(name);
	drmDropMaster(c->fd);
	return bad;
}

/* A client process: its buffers first, then its turn when the pipe says. */
static int turn_client(const struct dev *d, int i, int go, int done)
{
	struct dev c = *d;
	char tok;
	int bad = 0, ret = 0;

	c.fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (c.fd < 0 || drmSetClientCap(c.fd, DRM_CLIENT_CAP_ATOMIC, 1))
		return 1;
	drmDropMaster(c.fd);	/* the first opener is master at once */
	for (int k = 0; k < 2 && !ret; k++) {
		ret = buf_create(c.fd, c.mode.hdisplay, c.mode.vdisplay, &c.scan[k]);
		if (!ret)
			fill(c.fd, &c.scan[k], k ? turn_colors[i] ^ 0x00101010 : turn_colors[i]);
	}
	if (write(done, "a", 1) != 1 || ret)
		return 1;
	if (read(go, &tok, 1) != 1)
		return 1;
	bad = turn_run(&c, i);
	fflush(stdout);
	if (write(done, "t", 1) != 1)
		return 1;
	/* Keep the buffers until every turn is over: all exist at once. */
	if (read(go, &tok, 1) != 1)
		return 1;
	close(c.fd);
	return bad;
}

static void group_turns(struct dev *d)
{
	int go[TURNS][2], done[2], status, fails = 0;
	pid_t pid[TURNS];
	char tok;

	/* Turn off only what we showed: the clients take over the console's mode. */
	if (d->active)
		release_scanout(d);
	fflush(stdout);
	if (pipe(done) || drmDropMaster(d->fd)) {
		check(0, "turns_setup", "%s", strerror(errno));
		return;
	}
	for (int i = 0; i < TURNS; i++) {
		if (pipe(go[i]))
			return;
		pid[i] = fork();
		if (!pid[i])
			_exit(turn_client(d, i, go[i][0], done[1]));
	}
	for (int i = 0; i < TURNS; i++)
		fails += read(done[0], &tok, 1) != 1 || tok != 'a';
	check(!fails, "turns_all_allocated", "%d x 2 buffers of %ux%u", TURNS, d->mode.hdisplay,
	      d->mode.vdisplay);
	for (int i = 0; i < TURNS && !fails; i++) {
		fails += write(go[i][1], "g", 1) != 1;
		fails += read(done[0], &tok, 1) != 1 || tok != 't';
	}
	for (int i = 0; i < TURNS; i++) {
		char name[32];

		/* The others hold this pipe's write end too: say it, not EOF. */
		if (write(go[i][1], "q", 1) != 1)
			kill(pid[i], SIGKILL);
		close(go[i][1]);
		close(go[i][0]);
		waitpid(pid[i], &status, 0);
		snprintf(name, sizeof(name), "turns_client_%d", i);
		check(WIFEXITED(status) && !WEXITSTATUS(status), name, "exit status %#x", status);
	}
	close(done[0]);
	close(done[1]);
	check(!drmSetMaster(d->fd), "turns_master_back", "%s", strerror(errno));
}

/* ---- setup ------------------------------------------------------------- */

static int find_props(struct dev *d)
{
	const struct {
		uint32_t obj, type;
		const char *name;
		uint32_t *id;
	} t[] = {
		{ d->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID", &d->p.crtc_mode_id },
		{ d->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE", &d->p.crtc_active },
		{ d->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", &d->p.conn_crtc_id },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "FB_ID", &d->p.fb_id },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID", &d->p.crtc_id },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_X", &d->p.src_x },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_Y", &d->p.src_y },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_W", &d->p.src_w },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_H", &d->p.src_h },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_X", &d->p.crtc_x },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_Y", &d->p.crtc_y },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_W", &d->p.crtc_w },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_H", &d->p.crtc_h },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		*t[i].id = prop_id(d->fd, t[i].obj, t[i].type, t[i].name, NULL);
		if (!*t[i].id)
			return check(0, "setup", "object %u has no %s property", t[i].obj,
				     t[i].name), -1;
	}
	return 0;
}

/* The connected connector's preferred mode, and a smaller one for variety. */
static void pick_modes(struct dev *d, const drmModeConnector *c)
{
	const drmModeModeInfo *m = &c->modes[0];

	for (int i = 0; i < c->count_modes; i++)
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			m = &c->modes[i];
			break;
		}
	d->mode = *m;
	d->alt = *m;
	for (int i = 0; i < c->count_modes; i++) {
		const drmModeModeInfo *a = &c->modes[i];

		if (a->hdisplay <= m->hdisplay && a->vdisplay <= m->vdisplay &&
		    (a->hdisplay != m->hdisplay || a->vdisplay != m->vdisplay)) {
			d->alt = *a;
			break;
		}
	}
	d->refresh = m->clock * 1000.0 / ((double)m->htotal * m->vtotal);
	d->big = *m;
	for (int i = 0; i < c->count_modes; i++)
		if ((uint64_t)c->modes[i].hdisplay * c->modes[i].vdisplay >
		    (uint64_t)d->big.hdisplay * d->big.vdisplay)
			d->big = c->modes[i];
}

static uint32_t find_connector(struct dev *d, const drmModeRes *res)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(d->fd, res->connectors[i]);
		drmModeEncoder *e = NULL;

		if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes && c->count_encoders)
			e = drmModeGetEncoder(d->fd, c->encoders[0]);
		for (int k = 0; e && k < res->count_crtcs; k++)
			if (e->possible_crtcs & (1u << k)) {
				d->conn = c->connector_id;
				d->crtc = res->crtcs[k];
				pick_modes(d, c);
				break;
			}
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
		if (d->conn)
			return 1u << crtc_index(d);
	}
	return 0;
}

static void find_plane(struct dev *d, uint32_t crtc_mask)
{
	drmModePlaneRes *pres = drmModeGetPlaneResources(d->fd);

	for (uint32_t i = 0; pres && i < pres->count_planes && !d->plane; i++) {
		drmModePlane *p = drmModeGetPlane(d->fd, pres->planes[i]);
		uint64_t type = 0;

		if (p && (p->possible_crtcs & crtc_mask) &&
		    prop_id(d->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) &&
		    type == DRM_PLANE_TYPE_PRIMARY)
			d->plane = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
}

static int setup(struct dev *d)
{
	drmModeRes *res;
	drmVersion *ver;
	uint32_t mask = 0;

	d->fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return check(0, "setup", "%s: %s", d->path, strerror(errno)), -1;
	if (drmSetClientCap(d->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
	    drmSetClientCap(d->fd, DRM_CLIENT_CAP_ATOMIC, 1))
		return check(0, "setup", "no atomic modesetting: %s", strerror(errno)), -1;
	if (!drmIsMaster(d->fd))
		return check(0, "setup", "not DRM master: does another client hold it?"), -1;
	res = drmModeGetResources(d->fd);
	if (res)
		mask = find_connector(d, res);
	drmModeFreeResources(res);
	if (mask)
		find_plane(d, mask);
	if (!d->plane)
		return check(0, "setup", "no connected connector, CRTC and primary plane"), -1;
	ver = drmGetVersion(d->fd);
	diag("%s %s: connector %u, crtc %u, plane %u, mode %ux%u@%.3f Hz, other mode %ux%u",
	     d->path, ver ? ver->name : "?", d->conn, d->crtc, d->plane, d->mode.hdisplay,
	     d->mode.vdisplay, d->refresh, d->alt.hdisplay, d->alt.vdisplay);
	drmFreeVersion(ver);
	return find_props(d);
}

/* ---- main -------------------------------------------------------------- */

static const struct group groups[] = {
	{ "atomic", group_atomic,
	  "TEST_ONLY full modesets: valid ones pass and change nothing; scaling,\n"
	  "           a 1366-wide mode and an 8192x8192 mode fail with -EINVAL" },
	{ "flip", group_flip,
	  "nonblocking flips with events between two buffers: every event\n"
	  "           arrives in commit order, sequence and timestamps increase, a\n"
	  "           second commit while one is pending gets -EBUSY, flip rate =\n"
	  "           refresh rate" },
	{ "vblank", group_vblank,
	  "drmWaitVBlank relative 1 and 10; 60 vblanks take 60 frames" },
	{ "auth", group_auth,
	  "an unauthenticated open gets -EACCES from GEM_FLINK/GEM_OPEN; the\n"
	  "           master's flink works; after drmAuthMagic GEM_OPEN works" },
	{ "prime", group_prime,
	  "dma-buf export/import between two opens share memory (dumb mmap\n"
	  "           on each, and mmap of the dma-buf fd); mmap at an offset" },
	{ "bad", group_bad,
	  "bad dumb sizes, framebuffers past their buffer, impossible mode,\n"
	  "           flips on an off CRTC, double frees, closing with a flip\n"
	  "           pending: clean errors, and the device keeps working" },
	{ "mem", group_mem,
	  "dumb buffers at the largest mode until refused (a clean -ENOMEM or\n"
	  "           -ENOSPC, usable buffers before it); a new buffer is zero; one\n"
	  "           mapping read and written byte for byte as its buffer moves\n"
	  "           into VRAM, out and back; primary plane off with the CRTC on;\n"
	  "           impossible timings refused" },
	{ "turns", group_turns,
	  "4 clients, each with 2 buffers at the preferred mode, allocated at\n"
	  "           once, take turns as master: modeset, 60 vsynced flips" },
};

#define N_GROUPS ARRAY_SIZE(groups)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-test [-d /dev/dri/cardN] [-n FLIPS] [-t PERCENT] [--all | GROUP...]\n"
		"Check a KMS driver through the standard ioctls (libdrm).  Must be the\n"
		"DRM master (the first to open the card; in-kernel fbdev does not count)\n"
		"and, for the auth group, root (CAP_SYS_ADMIN is dropped for one open).\n"
		"\n"
		"  -d, --device PATH   device node (default /dev/dri/card0)\n"
		"  -n, --flips N       page flips in the flip group (default 120)\n"
		"  -t, --tolerance P   allowed flip rate / vblank timing error, percent\n"
		"                      (default 5)\n"
		"  -a, --all           run every group (also the default with no GROUP)\n"
		"  -l, --list          list the groups\n"
		"  -h, --help          this text\n"
		"\n"
		"With KMSVT_TEST_SYNC=DIR in the environment, the mem and turns groups\n"
		"stop where the screen is worth looking at: they create DIR/NAME and\n"
		"wait (up to a minute) for DIR/NAME.ack.\n"
		"\n"
		"Groups, run in the order given:\n");
	for (size_t i = 0; i < N_GROUPS; i++)
		fprintf(f, "  %-8s %s\n", groups[i].name, groups[i].help);
	fprintf(f,
		"\n"
		"Output: \"ok NAME[: detail]\" or \"not ok NAME: detail\" a check, \"# ...\"\n"
		"diagnostics, and last \"N passed, N failed\".  Exit status 0 if all\n"
		"passed, 1 if any failed, 2 for bad usage.  The display is left as the\n"
		"checks leave it: the console comes back when this master closes.\n");
}

static int parse(int argc, char **argv, struct dev *d)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "flips", required_argument, NULL, 'n' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int o;

	while ((o = getopt_long(argc, argv, "d:n:t:alh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			d->path = optarg;
			break;
		case 'n':
			d->flips = atoi(optarg);
			if (d->flips < 2 || d->flips > MAX_FLIPS)
				return fprintf(stderr, "kmsvt-test: -n 2..%d\n", MAX_FLIPS), 2;
			break;
		case 't':
			d->tol = atof(optarg) / 100;
			break;
		case 'a':
			break;
		case 'l':
			for (size_t i = 0; i < N_GROUPS; i++)
				printf("%s\n", groups[i].name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct dev d = { .path = "/dev/dri/card0", .fd = -1, .flips = 120, .tol = 0.05 };
	int ret = parse(argc, argv, &d);

	if (ret >= 0)
		return ret;
	if (check_groups("kmsvt-test", groups, N_GROUPS, argv + optind, argc - optind))
		return 2;
	if (setup(&d) == 0)
		run_groups(&d, groups, N_GROUPS, argv + optind, argc - optind);
	if (n_skip)
		diag("%d skipped (counted as passed)", n_skip);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	if (d.fd >= 0)
		close(d.fd);
	return n_fail ? 1 : 0;
}
