// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's mem group: dumb buffers at the largest mode until refused (a
 * clean -ENOMEM or -ENOSPC, usable buffers before it); a new buffer is zero;
 * one mapping read and written byte for byte as its buffer moves into VRAM,
 * out and back; primary plane off with the CRTC on; impossible timings
 * refused.
 */
#include "kmsvt-test.h"

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
	int ready[2], go[2], ret = 0;
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
	ret = ret ? ret : flip_n(d, &f, 30);
	check(!ret && f.ngot == 30, "mem_other_client_flips", "%d of 30 flips while memory is "
	      "full: %s", f.ngot, err(ret));
	child_done(pid, go[1], "mem_hog_client");
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

void group_mem(struct dev *d)
{
	mem_until_refused(d);
	mem_new_buffer_shown(d);
	mem_mmap_across_moves(d);
	mem_plane_off(d);
	mem_bad_timings(d);
}
