// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's vblank group: drmWaitVBlank relative 1 and 10; 60 vblanks
 * take 60 frames.
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

static int wait_vbl_type(const struct dev *d, unsigned int type, unsigned int n, drmVBlank *v)
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

void group_vblank(struct dev *d)
{
	if (active_or_fail(d, "vblank_setup"))
		return;
	vblank_relative(d);
	vblank_timing(d);
}
