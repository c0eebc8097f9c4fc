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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#define MAX_FLIPS 10000

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
	static char buf[32];

	if (ret == 0)
		return "0";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (-ret == names[i].e) {
			snprintf(buf, sizeof(buf), "-%s", names[i].n);
			return buf;
		}
	snprintf(buf, sizeof(buf), "%d", ret);
	return buf;
}

/* ret must be -e1 or -e2 (e2 0: only e1). */
static int expect(const char *name, int ret, int e1, int e2)
{
	int pass = ret == -e1 || (e2 && ret == -e2);

	if (pass)
		return check(1, name, "%s", err(ret));
	return check(0, name, "got %s, want %s%s%s", err(ret), err(-e1),
		     e2 ? " or " : "", e2 ? err(-e2) : "");
}

/* ---- small helpers ----------------------------------------------------- */

static int xioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dumb_create(int fd, uint32_t w, uint32_t h, uint32_t bpp,
		       struct drm_mode_create_dumb *c)
{
	memset(c, 0, sizeof(*c));
	c->width = w;
	c->height = h;
	c->bpp = bpp;
	return xioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, c);
}

static int dumb_destroy(int fd, uint32_t handle)
{
	struct drm_mode_destroy_dumb d = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
}

/* Map len bytes of a buffer from byte off on; NULL with errno on failure. */
static void *dumb_map(int fd, uint32_t handle, size_t len, uint64_t off)
{
	struct drm_mode_map_dumb m = { .handle = handle };
	void *p;

	if (xioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset + off);
	return p == MAP_FAILED ? NULL : p;
}

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

/* Our modeset with scan[0], unless it is already up.  Returns -errno. */
static int need_active(struct dev *d)
{
	int ret;

	if (d->active)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (d->scan[i].fb)
			continue;
		ret = buf_create(d->fd, d->mode.hdisplay, d->mode.vdisplay, &d->scan[i]);
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

