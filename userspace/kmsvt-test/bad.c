// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's bad group: bad dumb sizes, framebuffers past their buffer,
 * impossible mode, flips on an off CRTC, double frees, closing with a flip
 * pending: clean errors, and the device keeps working.
 */
#include "kmsvt-test.h"

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

void group_bad(struct dev *d)
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
