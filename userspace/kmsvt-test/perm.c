// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's perm group: what a file that is not master may not do
 * (atomic commits, TEST_ONLY too, page flips, SetCrtc, SetPlane: -EACCES;
 * another file's framebuffers: -ENOENT; GETFB without CAP_SYS_ADMIN gives
 * no handle), GEM handles name nothing in another file, and a new dumb
 * buffer never shows a previous owner's pixels (freed in system memory or
 * in VRAM after scanout, by the same file or by one closed since).
 * The flink side (authentication) is the auth group's.
 */
#include "kmsvt-test.h"

#define PATTERN 0x5eca1ed0u
#define REUSE_ROUNDS 24

static int open_second(const struct dev *d)
{
	int fd = open(d->path, O_RDWR | O_CLOEXEC);

	if (fd >= 0 && (drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
			drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A second file, not master while d's is: every display change refused. */
static void perm_not_master(struct dev *d)
{
	struct dev o = *d;
	struct buf b;
	struct drm_mode_fb_cmd2 gf = { 0 };
	drmModeAtomicReq *req;
	uint32_t conn = d->conn;
	int ret;

	o.fd = open_second(d);
	if (!checkq(o.fd >= 0, "perm_open_second", "%s", strerror(errno)))
		return;
	if (!check(drmIsMaster(o.fd) == 0 && drmIsMaster(d->fd) == 1, "perm_second_not_master",
		   "second master %d, first %d", drmIsMaster(o.fd), drmIsMaster(d->fd)))
		goto out;
	ret = buf_create(o.fd, d->mode.hdisplay, d->mode.vdisplay, &b);
	if (!check(!ret, "perm_nonmaster_addfb", "%s (a file's own framebuffer is allowed)",
		   err(ret)))
		goto out;
	fill(o.fd, &b, PATTERN);

	ret = commit_flip(&o, b.fb, 0, 0);
	expect("perm_nonmaster_atomic_commit", ret, EACCES, 0);
	ret = commit_flip(&o, b.fb, DRM_MODE_ATOMIC_TEST_ONLY, 0);
	expect("perm_nonmaster_atomic_test_only", ret, EACCES, 0);
	req = drmModeAtomicAlloc();
	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 0);
	ret = drmModeAtomicCommit(o.fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	expect("perm_nonmaster_atomic_crtc_off", ret, EACCES, 0);
	ret = drmModePageFlip(o.fd, d->crtc, b.fb, DRM_MODE_PAGE_FLIP_EVENT, NULL);
	expect("perm_nonmaster_page_flip", ret, EACCES, 0);
	ret = drmModeSetCrtc(o.fd, d->crtc, b.fb, 0, 0, &conn, 1, &d->mode);
	expect("perm_nonmaster_setcrtc", ret, EACCES, 0);
	ret = drmModeSetCrtc(o.fd, d->crtc, 0, 0, 0, NULL, 0, NULL);
	expect("perm_nonmaster_setcrtc_off", ret, EACCES, 0);
	ret = drmModeSetPlane(o.fd, d->plane, d->crtc, b.fb, 0, 0, 0, d->mode.hdisplay,
			      d->mode.vdisplay, 0, 0, (uint32_t)d->mode.hdisplay << 16,
			      (uint32_t)d->mode.vdisplay << 16);
	expect("perm_nonmaster_setplane", ret, EACCES, 0);
	/* The master's framebuffer is not this file's to remove. */
	ret = drmModeRmFB(o.fd, d->scan[d->cur].fb);
	expect("perm_nonmaster_rmfb_other", ret, ENOENT, 0);
	/* Nor to get a handle of, without CAP_SYS_ADMIN. */
	gf.fb_id = d->scan[d->cur].fb;
	if (sysadmin(0) == 0) {
		ret = xioctl(o.fd, DRM_IOCTL_MODE_GETFB2, &gf);
		sysadmin(1);
		check((ret == 0 && gf.handles[0] == 0) || ret == -EACCES || ret == -EPERM,
		      "perm_nonmaster_getfb_no_handle", "%s, handle %u", err(ret), gf.handles[0]);
	} else {
		check(0, "perm_nonmaster_getfb_no_handle", "cannot drop CAP_SYS_ADMIN (run as root)");
	}
	/* Nothing of it reached the screen: the master's buffer is scanned out. */
	check(crtc_fb(d, NULL) == d->scan[d->cur].fb, "perm_nonmaster_changed_nothing",
	      "crtc shows fb %u, master's %u", crtc_fb(d, NULL), d->scan[d->cur].fb);
	buf_destroy(o.fd, &b);
out:
	close(o.fd);
}

/* A GEM handle means nothing in another file, even at the same number. */
static void perm_handles(struct dev *d)
{
	struct drm_mode_create_dumb c, c2;
	struct drm_mode_map_dumb m;
	struct drm_prime_handle ph;
	struct drm_gem_close gc;
	uint32_t fb = 0, *pa = NULL, *pb = NULL;
	int fd2, ret;

	ret = dumb_create(d->fd, 256, 256, 32, &c);
	if (!check(!ret, "perm_handles_setup", "%s", err(ret)))
		return;
	fd2 = open_second(d);
	if (!checkq(fd2 >= 0, "perm_handles_open", "%s", strerror(errno)))
		goto out;
	m = (struct drm_mode_map_dumb){ .handle = c.handle };
	expect("perm_handle_map_other", xioctl(fd2, DRM_IOCTL_MODE_MAP_DUMB, &m), ENOENT, EINVAL, 0);
	expect("perm_handle_addfb_other", add_fb(fd2, 256, 256, c.handle, c.pitch, 0, &fb),
	       ENOENT, EINVAL, 0);
	ph = (struct drm_prime_handle){ .handle = c.handle, .flags = DRM_CLOEXEC };
	ret = xioctl(fd2, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	expect("perm_handle_prime_export_other", ret, ENOENT, EINVAL, 0);
	if (!ret)
		close(ph.fd);
	gc = (struct drm_gem_close){ .handle = c.handle };
	expect("perm_handle_close_other", xioctl(fd2, DRM_IOCTL_GEM_CLOSE, &gc), EINVAL, ENOENT, 0);
	expect("perm_handle_destroy_other", dumb_destroy(fd2, c.handle), EINVAL, ENOENT, 0);
	/* The master's buffer is still there, and fd2's first buffer is its own. */
	pa = dumb_map(d->fd, c.handle, c.size, 0);
	/* fd2's buffers until one has the master's buffer's handle number. */
	for (int k = 0; k < 64; k++) {
		ret = dumb_create(fd2, 256, 256, 32, &c2);
		if (ret || c2.handle >= c.handle)
			break;
	}
	pb = ret ? NULL : dumb_map(fd2, c2.handle, c2.size, 0);
	if (check(pa && pb && c2.handle == c.handle, "perm_handle_own_buffers",
		  "map %s; fd2 handle %u, master's %u", pa && pb ? "OK" : strerror(errno),
		  ret ? 0 : c2.handle, c.handle)) {
		size_t same = 0;

		for (size_t i = 0; i < c.size / 4; i++)
			pa[i] = PATTERN;
		for (size_t i = 0; i < c2.size / 4; i++)
			same += pb[i] == PATTERN;
		check(!same, "perm_handle_same_number_other_buffer",
		      "handles %u and %u: %zu words of the master's pattern in fd2's buffer",
		      c.handle, c2.handle, same);
	}
	if (pa)
		munmap(pa, c.size);
	if (pb)
		munmap(pb, c2.size);
	close(fd2);	/* and its buffers */
out:
	dumb_destroy(d->fd, c.handle);
}

/* Words of b (through a new mapping) that are not zero; -errno if unmappable. */
static long nonzero_words(int fd, const struct buf *b, long *pattern)
{
	uint32_t *p = dumb_map(fd, b->handle, b->size, 0);
	long n = 0;

	*pattern = 0;
	if (!p)
		return -errno;
	for (uint64_t i = 0; i < b->size / 4; i++) {
		n += p[i] != 0;
		*pattern += p[i] == PATTERN;
	}
	munmap(p, b->size);
	return n;
}

/*
 * Fill a buffer with the pattern, show it (so it sits in VRAM), free it;
 * a new buffer, read before and after it is shown, is zero.  Every other
 * round the previous owner is a second file, closed before the new
 * buffer is made.
 */
static void perm_reuse(struct dev *d)
{
	uint32_t w = d->mode.hdisplay, h = d->mode.vdisplay;
	long bad_sys = 0, bad_vram = 0, pat = 0, pat_total = 0;
	int errs = 0, r;

	if (active_or_fail(d, "perm_reuse"))
		return;
	for (r = 0; r < REUSE_ROUNDS && !errs; r++) {
		int owner = r & 1 ? open_second(d) : d->fd;
		struct buf old, b;
		long n;

		if (owner < 0 || buf_create(owner, w, h, &old)) {
			errs++;
			break;
		}
		fill(owner, &old, PATTERN);
		if (owner == d->fd) {
			/* Scanned out, then off the screen again and freed. */
			errs += commit_flip(d, old.fb, 0, 0) != 0;
			errs += commit_flip(d, d->scan[d->cur].fb, 0, 0) != 0;
			buf_destroy(owner, &old);
		} else {
			close(owner);	/* frees its buffers */
		}
		if (buf_create(d->fd, w, h, &b)) {
			errs++;
			break;
		}
		n = nonzero_words(d->fd, &b, &pat);
		bad_sys += n;
		pat_total += pat;
		/* Into VRAM for scanout (a move from system memory), read again. */
		errs += commit_flip(d, b.fb, 0, 0) != 0;
		n = nonzero_words(d->fd, &b, &pat);
		bad_vram += n;
		pat_total += pat;
		errs += commit_flip(d, d->scan[d->cur].fb, 0, 0) != 0;
		buf_destroy(d->fd, &b);
	}
	check(!errs, "perm_reuse_rounds", "%d rounds, %d ioctl errors", r, errs);
	check(!bad_sys && !pat_total, "perm_new_buffer_zero",
	      "%ld non-zero words in new buffers (%ld of the old pattern)", bad_sys, pat_total);
	check(!bad_vram && !pat_total, "perm_new_buffer_zero_in_vram",
	      "%ld non-zero words in new buffers scanned out (%ld of the old pattern)", bad_vram,
	      pat_total);
}

void group_perm(struct dev *d)
{
	if (active_or_fail(d, "perm_setup"))
		return;
	perm_not_master(d);
	perm_handles(d);
	perm_reuse(d);
}
