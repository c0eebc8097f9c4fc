// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's vblank group: drmWaitVBlank relative 1 and 10; 60 vblanks
 * take 60 frames; the counter across the CRTC turned off and on again.
 */
#include "kmsvt-test.h"

int crtc_index(const struct dev *d)
{
	drmModeRes *res = drmModeGetResources(d->fd);
	int idx = 0;

	for (int i = 0; res && i < res->count_crtcs; i++)
		if (res->crtcs[i] == d->crtc)
			idx = i;
	drmModeFreeResources(res);
	return idx;
}

int wait_vbl_type(const struct dev *d, unsigned int type, unsigned int n, drmVBlank *v)
{
	unsigned int high = crtc_index(d) << DRM_VBLANK_HIGH_CRTC_SHIFT;

	memset(v, 0, sizeof(*v));
	v->request.type = type | (high & DRM_VBLANK_HIGH_CRTC_MASK);
	v->request.sequence = n;
	return drmWaitVBlank(d->fd, v) ? -errno : 0;
}

int wait_vbl(const struct dev *d, unsigned int n, drmVBlank *v)
{
	return wait_vbl_type(d, DRM_VBLANK_RELATIVE, n, v);
}

double vbl_ts(const drmVBlank *v)
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

/* The CRTC off, its mode and connector gone, the primary plane untouched. */
static int crtc_off_plane_kept(const struct dev *d)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 0);
	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_mode_id, 0);
	drmModeAtomicAddProperty(req, d->conn, d->p.conn_crtc_id, 0);
	ret = drmModeAtomicCommit(d->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) ? -errno : 0;
	drmModeAtomicFree(req);
	return ret;
}

/*
 * As IGT's ts-continuation-modeset: the CRTC turned off with the plane
 * still holding its framebuffer (taken: the plane is just not visible), a
 * vblank wait on the off CRTC (-EINVAL), then on again: the counter goes
 * on from where it stopped, never back, and never by more vblanks than the
 * time that passed holds.
 */
static void vblank_across_modeset(struct dev *d)
{
	drmVBlank a, b;
	double t0, elapsed;
	int ret, diff;

	ret = wait_vbl(d, 1, &a);
	t0 = now();
	ret = ret ? ret : crtc_off_plane_kept(d);
	if (!check(!ret, "vblank_crtc_off_plane_kept", "%s", err(ret)))
		return;
	d->active = 0;
	ret = wait_vbl(d, 1, &b);
	check(ret == -EINVAL, "vblank_wait_off_crtc_einval", "%s", err(ret));
	ret = need_active(d);
	ret = ret ? ret : wait_vbl(d, 1, &b);
	elapsed = now() - t0;
	diff = (int)(b.reply.sequence - a.reply.sequence);
	check(!ret && diff >= 0 && diff <= elapsed * d->refresh + 5 && vbl_ts(&b) > vbl_ts(&a),
	      "vblank_count_continues", "%s, sequence %u -> %u in %.1f ms", err(ret),
	      a.reply.sequence, b.reply.sequence, elapsed * 1000);
}

void group_vblank(struct dev *d)
{
	if (active_or_fail(d, "vblank_setup"))
		return;
	vblank_relative(d);
	vblank_timing(d);
	vblank_across_modeset(d);
}
