// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-bench: measure a KMS driver through plain libdrm calls, so that
 * kmsvt and the in-tree bochs-drm can be compared on the same machine:
 * vsynced page flips, drmWaitVBlank, atomic commits, dumb buffer mmap
 * bandwidth and dumb buffer create/destroy.
 *
 * Prints one machine-readable line a metric, "bench NAME VALUE", and
 * human-readable detail on "# " lines.  A measurement the driver cannot do
 * prints "bench NAME_supported 0" and "bench NAME_errno E" instead of its
 * numbers.  Needs to be DRM master (the first to open the card; the
 * in-kernel fbdev client does not count).  The CRTC is set back as found at
 * exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "kms-util.h"
#include "tool.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define EVENT_TIMEOUT_MS 1000

struct buf {
	uint32_t handle, pitch, fb;
	uint64_t size;
};

struct dev {
	const char *path;
	int fd;
	uint32_t conn, crtc, plane, plane_fb_prop;
	int crtc_index;
	drmModeModeInfo mode;
	double refresh;			/* exact refresh of mode, Hz */
	drmModeCrtc *saved;		/* the CRTC as we found it */
	struct buf scan[2];
	int cur;			/* index of the scanned-out scan[] */
	int want_w, want_h;		/* -m, 0: preferred mode */
	double secs;			/* -t: flips, vblank waits, commits */
	double bw_secs;			/* -b: each bandwidth and create loop */
};

/* ---- small helpers ----------------------------------------------------- */

static void metric(const char *name, double val)
{
	printf("bench %s %.6g\n", name, val);
	fflush(stdout);
}

/* A measurement that could not run: say so in both forms. */
static void unsupported(const char *name, int err, const char *what)
{
	printf("# %s: %s: %s\n", name, what, strerror(err));
	printf("bench %s_supported 0\n", name);
	printf("bench %s_errno %d\n", name, err);
	fflush(stdout);
}

static void fail(const char *what, int err)
{
	fprintf(stderr, "kmsvt-bench: %s: %s\n", what, strerror(err));
}

/* Median and max of v[0..n) (sorts v); 0 for n == 0. */
static void med_max(double *v, int n, double *med, double *max)
{
	*med = *max = 0;
	if (n <= 0)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*max = v[n - 1];
}

/* A growing array of doubles. */
struct samples {
	double *v;
	int n, cap;
};

static int push(struct samples *s, double x)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 1024;
		double *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	return 0;
}

/* ---- dumb buffers ------------------------------------------------------ */

static int buf_create(struct dev *d, struct buf *b, uint32_t color)
{
	struct drm_mode_create_dumb c;
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	uint32_t *p;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = dumb_create(d->fd, d->mode.hdisplay, d->mode.vdisplay, 32, &c);
	if (ret)
		return fail("CREATE_DUMB", -ret), ret;
	b->handle = c.handle;
	b->pitch = c.pitch;
	b->size = c.size;
	handles[0] = c.handle;
	pitches[0] = c.pitch;
	if (drmModeAddFB2(d->fd, d->mode.hdisplay, d->mode.vdisplay, DRM_FORMAT_XRGB8888,
			  handles, pitches, offsets, &b->fb, 0)) {
		ret = -errno;
		fail("drmModeAddFB2", errno);
		return ret;
	}
	p = dumb_map(d->fd, b->handle, b->size, 0);
	if (!p) {
		ret = -errno;
		fail("mmap of a dumb buffer", errno);
		return ret;
	}
	for (uint64_t i = 0; i < b->size / 4; i++)
		p[i] = color;
	if (munmap(p, b->size))
		return ret = -errno, fail("munmap", errno), ret;
	return 0;
}

static void buf_destroy(int fd, struct buf *b)
{
	if (b->fb && drmModeRmFB(fd, b->fb))
		fail("drmModeRmFB", errno);
	if (b->handle) {
		int ret = dumb_destroy(fd, b->handle);

		if (ret)
			fail("DESTROY_DUMB", -ret);
	}
	memset(b, 0, sizeof(*b));
}

/* ---- page flips -------------------------------------------------------- */

struct flip_state {
	int got;
	unsigned int seq;
	double ts, at;		/* event timestamp, and when we read it */
};

static void on_flip(int fd, unsigned int seq, unsigned int sec, unsigned int usec,
		    void *data)
{
	struct flip_state *f = data;

	(void)fd;
	f->got = 1;
	f->seq = seq;
	f->ts = sec + usec / 1e6;
	f->at = now();
}

/* Read DRM events until a flip event arrived; -errno, -ETIMEDOUT. */
static int wait_flip(int fd, struct flip_state *f)
{
	drmEventContext ev = { .version = 2, .page_flip_handler = on_flip };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	while (!f->got) {
		r = poll(&pfd, 1, EVENT_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		if (drmHandleEvent(fd, &ev))
			return -EIO;
	}
	return 0;
}

static void bench_flip(struct dev *d)
{
	struct samples lat = { 0 };
	unsigned int seq0 = 0, last_seq = 0;
	int n = 0, seq_inc = 1, ts_mono = 1, ret = 0;
	double t0, t, last_ts = 0, ts0 = 0, med, max;

	metric("mode_refresh_hz", d->refresh);
	t0 = now();
	while ((t = now()) - t0 < d->secs) {
		/* static: an event that comes after a timeout must not hit a dead frame */
		static struct flip_state f;
		int next = !d->cur;
		double ret_at;

		memset(&f, 0, sizeof(f));
		if (drmModePageFlip(d->fd, d->crtc, d->scan[next].fb, DRM_MODE_PAGE_FLIP_EVENT,
				    &f)) {
			ret = -errno;
			break;
		}
		ret_at = now();
		ret = wait_flip(d->fd, &f);
		if (ret)
			break;
		d->cur = next;
		if (push(&lat, (f.at - ret_at) * 1e6)) {
			ret = -ENOMEM;
			break;
		}
		if (n == 0) {
			seq0 = f.seq;
			ts0 = f.ts;
		} else {
			seq_inc &= f.seq > last_seq;
			ts_mono &= f.ts >= last_ts;
		}
		last_seq = f.seq;
		last_ts = f.ts;
		n++;
	}
	t = now() - t0;
	if (ret && n == 0) {
		unsupported("flip", -ret, "drmModePageFlip with event");
		free(lat.v);
		return;
	}
	if (ret) {
		printf("# flip: stopped after %d flips: %s\n", n, strerror(-ret));
		metric("flip_errno", -ret);
	}
	med_max(lat.v, lat.n, &med, &max);
	printf("# flip: %d flips in %.3f s, event sequence %u -> %u, timestamps %.6f -> %.6f\n",
	       n, t, seq0, last_seq, ts0, last_ts);
	metric("flip_rate_hz", n / t);
	metric("flip_latency_med_us", med);
	metric("flip_latency_max_us", max);
	metric("flip_seq_increasing", n > 1 && seq_inc);
	metric("flip_ts_monotonic", n > 1 && ts_mono);
	metric("flip_seq_rate_hz",
	       n > 1 && last_ts > ts0 ? (last_seq - seq0) / (last_ts - ts0) : 0);
	free(lat.v);
}

/* ---- vblank waits ------------------------------------------------------ */

static int wait_vbl(const struct dev *d, drmVBlank *v)
{
	unsigned int high = d->crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT;

	memset(v, 0, sizeof(*v));
	v->request.type = DRM_VBLANK_RELATIVE | (high & DRM_VBLANK_HIGH_CRTC_MASK);
	v->request.sequence = 1;
	return drmWaitVBlank(d->fd, v) ? -errno : 0;
}

static void bench_vblank(struct dev *d)
{
	unsigned int seq0;
	drmVBlank v;
	double t0, t;
	int n = 0, ret;

	ret = wait_vbl(d, &v);
	if (ret) {
		unsupported("vblank_wait", -ret, "drmWaitVBlank relative 1");
		return;
	}
	seq0 = v.reply.sequence;
	t0 = now();
	while ((t = now()) - t0 < d->secs) {
		ret = wait_vbl(d, &v);
		if (ret)
			break;
		n++;
	}
	t = now() - t0;
	if (ret) {
		printf("# vblank_wait: stopped after %d waits: %s\n", n, strerror(-ret));
		metric("vblank_wait_errno", -ret);
	}
	printf("# vblank_wait: %d waits in %.3f s, sequence %u -> %u\n", n, t, seq0,
	       v.reply.sequence);
	metric("vblank_wait_hz", n / t);
}

/* ---- atomic commits ---------------------------------------------------- */

static int commit_fb(const struct dev *d, uint32_t fb, uint32_t flags)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	if (drmModeAtomicAddProperty(req, d->plane, d->plane_fb_prop, fb) < 0) {
		drmModeAtomicFree(req);
		return -ENOMEM;
	}
	ret = drmModeAtomicCommit(d->fd, req, flags, NULL);
	drmModeAtomicFree(req);
	return ret;
}

/* Commits for d->secs; rate and median/max time per commit. */
static void commit_loop(struct dev *d, const char *name, uint32_t flags)
{
	struct samples lat = { 0 };
	char key[64];
	double t0, t, a, med, max;
	int n = 0, ret = 0;

	t0 = now();
	while ((t = now()) - t0 < d->secs) {
		int next = !d->cur;

		a = now();
		ret = commit_fb(d, d->scan[next].fb, flags);
		if (ret)
			break;
		if (!(flags & DRM_MODE_ATOMIC_TEST_ONLY))
			d->cur = next;
		if (push(&lat, (now() - a) * 1e6)) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	t = now() - t0;
	if (ret && n == 0) {
		unsupported(name, -ret, "atomic commit");
		free(lat.v);
		return;
	}
	if (ret) {
		printf("# %s: stopped after %d commits: %s\n", name, n, strerror(-ret));
		snprintf(key, sizeof(key), "%s_errno", name);
		metric(key, -ret);
	}
	med_max(lat.v, lat.n, &med, &max);
	printf("# %s: %d commits in %.3f s\n", name, n, t);
	snprintf(key, sizeof(key), "%s_hz", name);
	metric(key, n / t);
	snprintf(key, sizeof(key), "%s_med_us", name);
	metric(key, med);
	free(lat.v);
}

/* The primary plane of our CRTC and its FB_ID property. */
static int find_plane(struct dev *d)
{
	drmModePlaneRes *pres = drmModeGetPlaneResources(d->fd);

	if (!pres)
		return -errno;
	for (uint32_t i = 0; i < pres->count_planes && !d->plane; i++) {
		drmModePlane *p = drmModeGetPlane(d->fd, pres->planes[i]);
		uint64_t type = 0;

		if (p && (p->possible_crtcs & (1u << d->crtc_index)) &&
		    prop_id(d->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) &&
		    type == DRM_PLANE_TYPE_PRIMARY)
			d->plane = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
	if (!d->plane)
		return -ENOENT;
	d->plane_fb_prop = prop_id(d->fd, d->plane, DRM_MODE_OBJECT_PLANE, "FB_ID", NULL);
	return d->plane_fb_prop ? 0 : -ENOENT;
}

static void bench_atomic(struct dev *d)
{
	int ret;

	if (drmSetClientCap(d->fd, DRM_CLIENT_CAP_ATOMIC, 1)) {
		unsupported("atomic", errno, "DRM_CLIENT_CAP_ATOMIC");
		return;
	}
	ret = find_plane(d);
	if (ret) {
		unsupported("atomic", -ret, "primary plane with FB_ID");
		return;
	}
	commit_loop(d, "atomic_test_only", DRM_MODE_ATOMIC_TEST_ONLY);
	commit_loop(d, "atomic_commit", 0);
}

/* ---- mmap bandwidth ---------------------------------------------------- */

enum bw_op { BW_MEMSET, BW_STORE64, BW_LOAD64 };

static uint64_t sink;

/* One pass over the buffer. */
static void bw_pass(void *p, uint64_t size, enum bw_op op, int pass)
{
	volatile uint64_t *q = p;
	uint64_t n = size / 8, sum = 0;

	switch (op) {
	case BW_MEMSET:
		memset(p, pass & 0xff, size);
		break;
	case BW_STORE64:
		for (uint64_t i = 0; i < n; i++)
			q[i] = i + pass;
		break;
	case BW_LOAD64:
		for (uint64_t i = 0; i < n; i++)
			sum += q[i];
		sink += sum;
		break;
	}
}

/* MB/s (10^6 bytes) of whole-buffer passes for d->bw_secs. */
static double bw_loop(const struct dev *d, void *p, uint64_t size, enum bw_op op)
{
	double t0 = now(), t;
	int passes = 0;

	do {
		bw_pass(p, size, op, passes);
		passes++;
	} while ((t = now() - t0) < d->bw_secs);
	return passes * (double)size / t / 1e6;
}

static void bench_mmap(struct dev *d)
{
	const struct buf *b = &d->scan[d->cur];
	struct drm_mode_create_dumb c;
	void *p;
	int ret;

	/* The buffer on screen: what a single-buffered client draws into. */
	p = dumb_map(d->fd, b->handle, b->size, 0);
	if (!p) {
		unsupported("mmap", errno, "mmap of the scanout dumb buffer");
		return;
	}
	printf("# mmap: scanout buffer %ux%u, %llu bytes, %.2f s a loop\n", d->mode.hdisplay,
	       d->mode.vdisplay, (unsigned long long)b->size, d->bw_secs);
	metric("mmap_memset_mbs", bw_loop(d, p, b->size, BW_MEMSET));
	metric("mmap_store64_mbs", bw_loop(d, p, b->size, BW_STORE64));
	metric("mmap_load64_mbs", bw_loop(d, p, b->size, BW_LOAD64));
	if (munmap(p, b->size))
		fail("munmap", errno);

	/* A fresh buffer that was never on screen (may live elsewhere, e.g. TTM system memory). */
	ret = dumb_create(d->fd, d->mode.hdisplay, d->mode.vdisplay, 32, &c);
	if (ret) {
		unsupported("mmap_fresh", -ret, "CREATE_DUMB");
		return;
	}
	p = dumb_map(d->fd, c.handle, c.size, 0);
	if (!p) {
		unsupported("mmap_fresh", errno, "mmap of a fresh dumb buffer");
	} else {
		metric("mmap_fresh_memset_mbs", bw_loop(d, p, c.size, BW_MEMSET));
		if (munmap(p, c.size))
			fail("munmap", errno);
	}
	ret = dumb_destroy(d->fd, c.handle);
	if (ret)
		fail("DESTROY_DUMB", -ret);
}

/* ---- create/destroy ---------------------------------------------------- */

static int create_cycle(int fd, int map)
{
	struct drm_mode_create_dumb c;
	void *p;
	int ret, ret2;

	ret = dumb_create(fd, 1024, 768, 32, &c);
	if (ret)
		return ret;
	if (map) {
		p = dumb_map(fd, c.handle, c.size, 0);
		if (!p)
			ret = -errno;
		else if (munmap(p, c.size))
			ret = -errno;
	}
	ret2 = dumb_destroy(fd, c.handle);
	return ret ? ret : ret2;
}

static void create_loop(struct dev *d, const char *name, int map)
{
	double t0 = now(), t;
	char key[64];
	int n = 0, ret = 0;

	while ((t = now()) - t0 < d->bw_secs) {
		ret = create_cycle(d->fd, map);
		if (ret)
			break;
		n++;
	}
	t = now() - t0;
	if (ret && n == 0) {
		unsupported(name, -ret, "dumb buffer cycle");
		return;
	}
	if (ret) {
		printf("# %s: stopped after %d cycles: %s\n", name, n, strerror(-ret));
		snprintf(key, sizeof(key), "%s_errno", name);
		metric(key, -ret);
	}
	printf("# %s: %d cycles of a 1024x768x32 dumb buffer in %.3f s\n", name, n, t);
	snprintf(key, sizeof(key), "%s_hz", name);
	metric(key, n / t);
}

static void bench_dumb(struct dev *d)
{
	create_loop(d, "dumb_create_map_destroy", 1);
	create_loop(d, "dumb_create_destroy", 0);
}

/* ---- scanout-ready cost ------------------------------------------------ */

#define PIN_ROUNDS 12

/*
 * What it costs to put a buffer on screen that was never there: a blocking
 * commit of a freshly written buffer (a TTM driver keeps it in system
 * memory until then and moves it into VRAM now), against a blocking commit
 * of the buffer shown just before it.  Both wait for a vblank, so the
 * difference of the medians is the move, or whatever else the driver does
 * to make a buffer scanout-ready.
 */
static void bench_pin(struct dev *d)
{
	struct samples fresh = { 0 }, shown = { 0 };
	double a, fmed, smed, max;
	int ret = 0;

	if (drmSetClientCap(d->fd, DRM_CLIENT_CAP_ATOMIC, 1) || find_plane(d)) {
		unsupported("scanout_ready", errno, "atomic commits of the primary plane");
		return;
	}
	for (int i = 0; i < PIN_ROUNDS && !ret; i++) {
		struct buf b;

		ret = buf_create(d, &b, 0x00102030 + i);
		a = now();
		ret = ret ? ret : commit_fb(d, b.fb, 0);
		ret = ret ? ret : push(&fresh, (now() - a) * 1e3);
		a = now();
		ret = ret ? ret : commit_fb(d, d->scan[d->cur].fb, 0);
		ret = ret ? ret : push(&shown, (now() - a) * 1e3);
		buf_destroy(d->fd, &b);
	}
	if (ret) {
		unsupported("scanout_ready", -ret, "commit of a new buffer");
	} else {
		med_max(fresh.v, fresh.n, &fmed, &max);
		med_max(shown.v, shown.n, &smed, &max);
		printf("# scanout_ready: %d rounds at %ux%u\n", PIN_ROUNDS, d->mode.hdisplay,
		       d->mode.vdisplay);
		metric("scanout_ready_fresh_ms", fmed);
		metric("scanout_ready_resident_ms", smed);
		metric("scanout_ready_move_ms", fmed - smed);
	}
	free(fresh.v);
	free(shown.v);
}

/* ---- last close -------------------------------------------------------- */

#define CLOSE_ROUNDS 10

/* The CRTC's framebuffer, read through a file of its own. */
static int crtc_fb(const struct dev *d, uint32_t *fb)
{
	int fd = open(d->path, O_RDWR | O_CLOEXEC);
	drmModeCrtc *c;

	if (fd < 0)
		return -errno;
	c = drmModeGetCrtc(fd, d->crtc);
	*fb = c ? c->buffer_id : 0;
	drmModeFreeCrtc(c);
	close(fd);
	return c ? 0 : -ENOENT;
}

/* Open the device again as its master and show a buffer of our own. */
static int show_own(struct dev *d)
{
	int ret;

	d->fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	if (!drmIsMaster(d->fd) && drmSetMaster(d->fd))
		return -errno;
	ret = buf_create(d, &d->scan[0], 0x00402010);
	if (!ret && drmModeSetCrtc(d->fd, d->crtc, d->scan[0].fb, 0, 0, &d->conn, 1, &d->mode))
		ret = -errno;
	return ret;
}

/*
 * How long the console takes to come back when the last DRM master goes:
 * close() of the device's only open file has the driver give the display
 * back to its console (a commit of the console's picture), and returns once
 * that is done.  Each round shows a buffer of its own and closes; then the
 * CRTC must show the framebuffer it showed before the benchmark (the
 * console's).  It runs last: it closes the benchmark's own file.
 */
static void bench_close(struct dev *d)
{
	uint32_t console_fb = d->saved ? d->saved->buffer_id : 0, fb = 0;
	struct samples t = { 0 };
	double a, med, max;
	int ret = 0, back = 0;

	drmModeFreeCrtc(d->saved);
	d->saved = NULL;
	for (int i = 0; i < CLOSE_ROUNDS && !ret; i++) {
		if (i)
			ret = show_own(d);
		if (ret)
			break;
		a = now();
		close(d->fd);
		ret = push(&t, (now() - a) * 1e3);
		d->fd = -1;
		memset(d->scan, 0, sizeof(d->scan));
		ret = ret ? ret : crtc_fb(d, &fb);
		back += !ret && fb && fb == console_fb;
	}
	if (ret) {
		unsupported("close", -ret, "closing and reopening the device");
	} else {
		med_max(t.v, t.n, &med, &max);
		printf("# close: %d rounds, the console's framebuffer back after %d\n",
		       CLOSE_ROUNDS, back);
		metric("close_restore_med_ms", med);
		metric("close_restore_max_ms", max);
		metric("close_console_back", back == CLOSE_ROUNDS);
	}
	free(t.v);
}

/* ---- setup and restore ------------------------------------------------- */

static int pick_mode(struct dev *d, const drmModeConnector *c)
{
	const drmModeModeInfo *m = NULL;

	for (int i = 0; i < c->count_modes && !m; i++) {
		const drmModeModeInfo *a = &c->modes[i];

		if (d->want_w ? a->hdisplay == d->want_w && a->vdisplay == d->want_h :
				!!(a->type & DRM_MODE_TYPE_PREFERRED))
			m = a;
	}
	if (!m && !d->want_w && c->count_modes)
		m = &c->modes[0];
	if (!m)
		return -ENOENT;
	d->mode = *m;
	d->refresh = m->clock * 1000.0 / ((double)m->htotal * m->vtotal);
	return 0;
}

/* The first connected connector, a CRTC its encoder can drive, and a mode. */
static int find_output(struct dev *d)
{
	drmModeRes *res = drmModeGetResources(d->fd);
	int ret = -ENOENT;

	if (!res)
		return -errno ? -errno : -ENODEV;
	for (int i = 0; i < res->count_connectors && !d->conn; i++) {
		drmModeConnector *c = drmModeGetConnector(d->fd, res->connectors[i]);
		drmModeEncoder *e = NULL;

		if (c && c->connection == DRM_MODE_CONNECTED && c->count_encoders)
			e = drmModeGetEncoder(d->fd, c->encoders[0]);
		for (int k = 0; e && k < res->count_crtcs; k++) {
			if (!(e->possible_crtcs & (1u << k)))
				continue;
			ret = pick_mode(d, c);
			if (!ret) {
				d->conn = c->connector_id;
				d->crtc = res->crtcs[k];
				d->crtc_index = k;
			}
			break;
		}
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	return d->conn ? 0 : ret;
}

static int setup(struct dev *d)
{
	drmVersion *ver;
	int ret;

	d->fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return ret = -errno, fail(d->path, errno), ret;
	if (drmSetClientCap(d->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1))
		return ret = -errno, fail("DRM_CLIENT_CAP_UNIVERSAL_PLANES", errno), ret;
	if (!drmIsMaster(d->fd) && drmSetMaster(d->fd))
		return ret = -errno, fail("not DRM master (another client holds it?)", errno), ret;
	ret = find_output(d);
	if (ret) {
		if (d->want_w)
			fprintf(stderr, "kmsvt-bench: no connected connector with a %dx%d mode\n",
				d->want_w, d->want_h);
		else
			fprintf(stderr, "kmsvt-bench: no connected connector with a mode\n");
		return ret;
	}
	ver = drmGetVersion(d->fd);
	printf("# %s: driver %s, connector %u, crtc %u, mode %ux%u@%.3f Hz\n", d->path,
	       ver ? ver->name : "?", d->conn, d->crtc, d->mode.hdisplay, d->mode.vdisplay,
	       d->refresh);
	printf("bench mode_width %u\nbench mode_height %u\n", d->mode.hdisplay, d->mode.vdisplay);
	drmFreeVersion(ver);
	d->saved = drmModeGetCrtc(d->fd, d->crtc);
	if (!d->saved)
		return ret = -errno, fail("drmModeGetCrtc", errno), ret;
	ret = buf_create(d, &d->scan[0], 0x00804020);
	ret = ret ? ret : buf_create(d, &d->scan[1], 0x00204080);
	if (ret)
		return ret;
	if (drmModeSetCrtc(d->fd, d->crtc, d->scan[0].fb, 0, 0, &d->conn, 1, &d->mode))
		return ret = -errno, fail("drmModeSetCrtc", errno), ret;
	d->cur = 0;
	return 0;
}

static int restore(struct dev *d)
{
	drmModeCrtc *s = d->saved;
	int ret = 0;

	if (s && s->mode_valid && s->buffer_id) {
		if (drmModeSetCrtc(d->fd, s->crtc_id, s->buffer_id, s->x, s->y, &d->conn, 1,
				   &s->mode)) {
			ret = -errno;
			fail("restoring the CRTC", errno);
		}
	} else if (s) {
		if (drmModeSetCrtc(d->fd, s->crtc_id, 0, 0, 0, NULL, 0, NULL)) {
			ret = -errno;
			fail("turning the CRTC off as found", errno);
		}
	}
	drmModeFreeCrtc(s);
	d->saved = NULL;
	buf_destroy(d->fd, &d->scan[0]);
	buf_destroy(d->fd, &d->scan[1]);
	return ret;
}

/* ---- main -------------------------------------------------------------- */

static const struct group groups[] = {
	{ "flip", bench_flip,
	  "drmModePageFlip with event between two buffers for -t seconds:\n"
	  "             flip_rate_hz, mode_refresh_hz, flip_latency_{med,max}_us\n"
	  "             (flip ioctl return to event read), flip_seq_increasing,\n"
	  "             flip_ts_monotonic, flip_seq_rate_hz (event sequence numbers\n"
	  "             per second of event timestamps)" },
	{ "vblank", bench_vblank,
	  "drmWaitVBlank relative 1 for -t seconds: vblank_wait_hz" },
	{ "atomic", bench_atomic,
	  "atomic commits of a primary plane FB_ID swap for -t seconds each:\n"
	  "             atomic_test_only_{hz,med_us} (TEST_ONLY, check only) and\n"
	  "             atomic_commit_{hz,med_us} (blocking, no event)" },
	{ "mmap", bench_mmap,
	  "write (memset, 64-bit stores) and read (64-bit loads) the mmapped\n"
	  "             scanout dumb buffer for -b seconds each: mmap_*_mbs (10^6\n"
	  "             bytes/s); mmap_fresh_memset_mbs for a never-shown buffer" },
	{ "dumb", bench_dumb,
	  "1024x768x32 dumb buffer CREATE+MAP+mmap+munmap+DESTROY and\n"
	  "             CREATE+DESTROY cycles for -b seconds each:\n"
	  "             dumb_create_map_destroy_hz, dumb_create_destroy_hz" },
	{ "pin", bench_pin,
	  "blocking commit of a freshly written buffer vs. of one shown just\n"
	  "             before, 12 rounds: scanout_ready_{fresh,resident}_ms\n"
	  "             (medians) and scanout_ready_move_ms, their difference" },
	{ "close", bench_close,
	  "close the device as its only user and last master, 10 rounds:\n"
	  "             close_restore_{med,max}_ms (close() returns once the console\n"
	  "             is committed back), close_console_back (1: the CRTC showed\n"
	  "             the console's framebuffer after every round). Runs last" },
};

#define N_GROUPS ARRAY_SIZE(groups)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-bench [-d /dev/dri/cardN] [-m WxH] [-t SECS] [-b SECS] [GROUP...]\n"
		"Benchmark a KMS driver through libdrm (any driver: kmsvt, bochs-drm, ...).\n"
		"Must be the DRM master (the first to open the card; in-kernel fbdev does\n"
		"not count).  Sets the mode on the first connected connector with two\n"
		"XRGB8888 dumb buffers and puts the CRTC back as found at exit.\n"
		"\n"
		"  -d, --device PATH   device node (default /dev/dri/card0)\n"
		"  -m, --mode WxH      mode to use (default: the connector's preferred)\n"
		"  -t, --time SECS     flip, vblank and each commit loop (default 3)\n"
		"  -b, --bw-time SECS  each bandwidth and create loop (default 2)\n"
		"  -l, --list          list the groups\n"
		"  -h, --help          this text\n"
		"\n"
		"Groups (default: all), run in the order given:\n");
	for (size_t i = 0; i < N_GROUPS; i++)
		fprintf(f, "  %-10s %s\n", groups[i].name, groups[i].help);
	fprintf(f,
		"\n"
		"Output: \"bench NAME VALUE\" lines (mode_width, mode_height and the\n"
		"metrics above), detail on \"# \" lines.  A measurement the driver cannot\n"
		"do gives \"bench NAME_supported 0\" and \"bench NAME_errno E\"; one that\n"
		"failed midway adds NAME_errno to its numbers.  Exit status 0 when set-up\n"
		"and restore worked, 1 otherwise, 2 for bad usage.\n");
}

static int parse(int argc, char **argv, struct dev *d)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "time", required_argument, NULL, 't' },
		{ "bw-time", required_argument, NULL, 'b' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int o;

	while ((o = getopt_long(argc, argv, "d:m:t:b:lh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			d->path = optarg;
			break;
		case 'm':
			if (tool_size("kmsvt-bench", o, optarg, &d->want_w, &d->want_h))
				return 2;
			break;
		case 't':
		case 'b':
			if (tool_double("kmsvt-bench", o, optarg, 0, o == 't' ? &d->secs : &d->bw_secs))
				return 2;
			break;
		case 'l':
			for (size_t i = 0; i < N_GROUPS; i++)
				printf("%s\n", groups[i].name);
			return 0;
		default:
			return tool_help(o, usage);
		}
	}
	if (check_groups("kmsvt-bench", groups, N_GROUPS, argv + optind, argc - optind))
		return 2;
	/* close gives up the device: nothing can run after it. */
	for (int i = optind; i < argc - 1; i++) {
		if (!strcmp(argv[i], "close")) {
			fprintf(stderr, "kmsvt-bench: close must be the last group\n");
			return 2;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct dev d = { .path = "/dev/dri/card0", .fd = -1, .secs = 3, .bw_secs = 2 };
	int ret = parse(argc, argv, &d), status = 0;

	if (ret >= 0)
		return ret;
	if (setup(&d) == 0) {
		run_groups(&d, groups, N_GROUPS, argv + optind, argc - optind);
	} else {
		status = 1;
	}
	if (d.fd >= 0) {
		if (restore(&d))
			status = 1;
		close(d.fd);
	}
	printf("bench done %d\n", status);
	return status;
}
