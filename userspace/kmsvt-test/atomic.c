// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's atomic group: TEST_ONLY full modesets: valid ones pass and
 * change nothing; scaling, a 1366-wide mode and an 8192x8192 mode fail with
 * -EINVAL.
 */
#include "kmsvt-test.h"

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

void group_atomic(struct dev *d)
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
