// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz, the card's buffers: dumb CREATE/MAP/DESTROY at edge sizes,
 * mmap at random offsets and lengths with writes through the mapping,
 * GEM flink/open/close, PRIME export and import (also of fds that are not
 * dma-bufs), and framebuffers: ADDFB, ADDFB2, RMFB, CLOSEFB, GETFB, GETFB2,
 * DIRTYFB.  Memory is bounded: only buffers of 16 MiB or less are kept (and
 * written, which makes TTM allocate all their pages), 48 MiB a process.
 */
#include "fuzz.h"

#include <sys/stat.h>


#define KEEP_MAX (16u << 20)
#define LIVE_MAX (48u << 20)
#define PRIME_MAX 8

/* ---- the process's buffers -------------------------------------------- */

static uint64_t live_bytes(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < fz.nbos; i++)
		sum += fz.bos[i].size;
	return sum;
}

static void bo_forget(uint32_t handle)
{
	for (int i = 0; i < fz.nbos; i++)
		if (fz.bos[i].handle == handle) {
			fz.bos[i] = fz.bos[--fz.nbos];
			return;
		}
}

static struct bo *bo_find(uint32_t handle)
{
	for (int i = 0; i < fz.nbos; i++)
		if (fz.bos[i].handle == handle)
			return &fz.bos[i];
	return NULL;
}

static void gem_close(uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	if (!xioctl(OP_GEM_CLOSE, fz.card, DRM_IOCTL_GEM_CLOSE, &c))
		bo_forget(handle);
}

/* Keep handle (size 0: unknown, never written) unless that costs too much. */
static void bo_keep(uint32_t handle, uint64_t size)
{
	if (bo_find(handle))
		return;
	if (fz.nbos == POOL_MAX)
		gem_close(fz.bos[rnd(POOL_MAX)].handle);
	if (size > KEEP_MAX || live_bytes() + size > LIVE_MAX || fz.nbos == POOL_MAX) {
		gem_close(handle);
		return;
	}
	fz.bos[fz.nbos++] = (struct bo){ handle, size };
}

static uint32_t pick_handle(void)
{
	if (fz.nbos && !one_in(6))
		return fz.bos[rnd(fz.nbos)].handle;
	return one_in(2) ? rnd(64) : (uint32_t)rnd_val();
}

/* The file is gone (or about to be): its handles and fbs went with it. */
void gem_release_all(void)
{
	fz.nbos = 0;
	memset(fz.scan, 0, sizeof(fz.scan));
}

/* ---- scanout buffers: what commits that can pass need ------------------ */

int scan_buf(int fd, struct scan *s, uint32_t w, uint32_t h)
{
	struct drm_mode_create_dumb c = { .width = w, .height = h, .bpp = 32 };
	struct drm_mode_fb_cmd2 f = { .width = w, .height = h,
				      .pixel_format = DRM_FORMAT_XRGB8888 };
	int ret = xioctl(OP_CREATE_DUMB, fd, DRM_IOCTL_MODE_CREATE_DUMB, &c);

	memset(s, 0, sizeof(*s));
	if (ret)
		return ret;
	f.handles[0] = c.handle;
	f.pitches[0] = c.pitch;
	ret = xioctl(OP_ADDFB2, fd, DRM_IOCTL_MODE_ADDFB2, &f);
	if (ret) {
		struct drm_mode_destroy_dumb d = { .handle = c.handle };

		xioctl(OP_DESTROY_DUMB, fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
		return ret;
	}
	*s = (struct scan){ .handle = c.handle, .fb = f.fb_id, .w = w, .h = h };
	return 0;
}

void scan_free(int fd, struct scan *s)
{
	struct drm_mode_destroy_dumb d = { .handle = s->handle };
	uint32_t fb = s->fb;

	if (fb)
		xioctl(OP_RMFB, fd, DRM_IOCTL_MODE_RMFB, &fb);
	if (s->handle)
		xioctl(OP_DESTROY_DUMB, fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
	memset(s, 0, sizeof(*s));
}

/* Two buffers at the preferred mode; retried now and then if refused. */
void scan_ensure(void)
{
	static unsigned int tries;

	for (int i = 0; i < 2 && fz.nmodes; i++)
		if (!fz.scan[i].fb && tries++ % 64 == 0)
			scan_buf(fz.card, &fz.scan[i], fz.modes[0].hdisplay, fz.modes[0].vdisplay);
}

/* ---- dumb buffers and their mappings ---------------------------------- */

static void op_create_dumb(void)
{
	static const uint32_t bpps[] = { 0, 1, 8, 15, 16, 24, 32, 33, 64, 0xffffffff };
	struct drm_mode_create_dumb c = { .width = rnd_dim(), .height = rnd_dim(),
					  .bpp = bpps[rnd(ARRAY_SIZE(bpps))] };

	if (one_in(2)) {	/* sizes that pass, to have buffers to use */
		c.width = 1 + rnd(1280);
		c.height = 1 + rnd(800);
		c.bpp = one_in(4) ? 16 : 32;
	}
	if (one_in(16))
		c.flags = (uint32_t)rnd_val();
	if (one_in(16))
		c.bpp = (uint32_t)rnd_val();
	if (!xioctl(OP_CREATE_DUMB, fz.card, DRM_IOCTL_MODE_CREATE_DUMB, &c))
		bo_keep(c.handle, c.size);
}

static void op_destroy_dumb(void)
{
	struct drm_mode_destroy_dumb d = { .handle = pick_handle() };

	if (!xioctl(OP_DESTROY_DUMB, fz.card, DRM_IOCTL_MODE_DESTROY_DUMB, &d))
		bo_forget(d.handle);
}

/* A length and page offset into an object of size bytes, often wrong. */
static void rnd_span(uint64_t size, size_t *len, off_t *off)
{
	uint64_t pages = (size + 4095) / 4096;

	switch (rnd(5)) {
	case 0:
		*len = size;
		*off = 0;
		break;
	case 1:
		*len = 4096;
		*off = pages ? (off_t)(rnd64() % pages) * 4096 : 0;
		break;
	case 2:
		*len = size + 4096 * rnd(3);
		*off = (off_t)4096 * rnd(3);
		break;
	case 3:
		*off = pages ? (off_t)(rnd64() % pages) * 4096 : 0;
		*len = 1 + rnd64() % (size + 1);
		break;
	default:
		*len = one_in(2) ? 0 : (size_t)rnd_val();
		*off = one_in(2) ? (off_t)(size & ~4095ull) : (off_t)(rnd_val() & ~4095ull);
	}
	if (one_in(16))
		*off += 1 + rnd(4095);	/* not page aligned */
}

/*
 * mmap fd at base + a random span of an object of size bytes, and write
 * through what the kernel accepted (only objects we may populate).
 */
static void map_and_write(int op, int fd, uint64_t base, uint64_t size, int writable)
{
	int prot = one_in(8) ? PROT_READ : PROT_READ | PROT_WRITE;
	double t0 = now();
	size_t len;
	off_t off;
	void *p;
	int sig;

	rnd_span(size, &len, &off);
	p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)base + off);
	record(op, p == MAP_FAILED ? errno : 0, t0);
	if (p == MAP_FAILED)
		return;
	if (writable && prot & PROT_WRITE && size <= KEEP_MAX) {
		sig = write_mapping(p, len);
		if (sig)
			anomaly("%s: signal %d writing a mapping the kernel gave (fd %d, offset %#llx + %#llx, length %zu, object %llu bytes)",
				op_names[op], sig, fd, (unsigned long long)base,
				(unsigned long long)off, len, (unsigned long long)size);
	}
	munmap(p, len);
}

static void op_map_dumb(void)
{
	struct drm_mode_map_dumb m = { .handle = pick_handle() };
	struct bo *b;

	if (one_in(16))
		m.pad = (uint32_t)rnd_val();
	if (xioctl(OP_MAP_DUMB, fz.card, DRM_IOCTL_MODE_MAP_DUMB, &m))
		return;
	b = bo_find(m.handle);
	map_and_write(OP_MMAP_DUMB, fz.card, m.offset, b ? b->size : 4096, b && b->size);
}

/* ---- flink and PRIME --------------------------------------------------- */

static void op_flink(void)
{
	struct drm_gem_flink f = { .handle = pick_handle() };
	struct drm_gem_open o = { .name = one_in(3) ? rnd(64) : (uint32_t)pool_pick(&fz.names) };

	if (one_in(2)) {
		if (!xioctl(OP_GEM_FLINK, fz.card, DRM_IOCTL_GEM_FLINK, &f))
			pool_add(&fz.names, f.name);
		return;
	}
	/* Names are global: small ones are other processes' buffers. */
	if (!xioctl(OP_GEM_OPEN, fz.card, DRM_IOCTL_GEM_OPEN, &o))
		bo_keep(o.handle, o.size);
}

static void prime_keep(int fd)
{
	if (fz.primefds.n == POOL_MAX || fz.primefds.n >= PRIME_MAX) {
		int old = (int)pool_pick(&fz.primefds);

		pool_del(&fz.primefds, (uint64_t)old);
		close(old);
	}
	pool_add(&fz.primefds, (uint64_t)fd);
}

static uint64_t fd_size(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);

	return end > 0 ? (uint64_t)end : 0;
}

static void op_handle_to_fd(void)
{
	static const uint32_t flags[] = { DRM_CLOEXEC, DRM_CLOEXEC | DRM_RDWR, 0, DRM_RDWR };
	struct drm_prime_handle p = { .handle = pick_handle(),
				      .flags = flags[rnd(ARRAY_SIZE(flags))] };

	if (one_in(8))
		p.flags = (uint32_t)rnd_val();
	if (!xioctl(OP_PRIME_HANDLE_TO_FD, fz.card, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p))
		prime_keep(p.fd);
}

/* Any fd: a dma-buf of ours, the card itself, fbdev, the tty, a pipe... */
static int rnd_fd(int *tmp)
{
	int fds[2];

	*tmp = -1;
	switch (rnd(8)) {
	case 0:
		return fz.card;
	case 1:
		return fz.fb;
	case 2:
		return fz.tty;
	case 3:
		if (pipe2(fds, O_CLOEXEC))
			return -1;
		close(fds[1]);
		return *tmp = fds[0];
	case 4:
		return *tmp = open("/dev/null", O_RDWR | O_CLOEXEC);
	case 5:
		return one_in(2) ? -1 : (int)rnd(1024);
	default:
		return fz.primefds.n ? (int)pool_pick(&fz.primefds) : -1;
	}
}

static void op_fd_to_handle(void)
{
	struct drm_prime_handle p = { .flags = one_in(8) ? (uint32_t)rnd_val() : 0 };
	int tmp;

	p.fd = rnd_fd(&tmp);
	if (!xioctl(OP_PRIME_FD_TO_HANDLE, fz.card, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p))
		bo_keep(p.handle, fd_size(p.fd));
	if (tmp >= 0)
		close(tmp);
}

static void op_mmap_dmabuf(void)
{
	int fd = (int)pool_pick(&fz.primefds);
	uint64_t size;

	if (!fz.primefds.n)
		return;
	size = fd_size(fd);
	map_and_write(OP_MMAP_DMABUF, fd, 0, size ? size : 4096, size != 0);
}

/* ---- framebuffers ------------------------------------------------------ */

static const uint32_t formats[] = {
	DRM_FORMAT_XRGB8888, DRM_FORMAT_ARGB8888, DRM_FORMAT_RGB565, DRM_FORMAT_XBGR8888,
	DRM_FORMAT_BGRX8888, DRM_FORMAT_C8, DRM_FORMAT_RGB888, DRM_FORMAT_XRGB2101010,
	DRM_FORMAT_NV12, DRM_FORMAT_YUV420, DRM_FORMAT_YUYV, DRM_FORMAT_XRGB16161616F, 0,
};

static const uint64_t modifiers[] = {
	DRM_FORMAT_MOD_LINEAR, DRM_FORMAT_MOD_INVALID, I915_FORMAT_MOD_X_TILED,
	DRM_FORMAT_MOD_VENDOR_NONE + 1, 0x0100000000000001ull,
};

/* A size and pitch that a buffer of ours holds, or random ones. */
static void fb_geometry(uint32_t *w, uint32_t *h, uint32_t *pitch, uint32_t cpp)
{
	*w = one_in(3) ? rnd_dim() : 1 + rnd(1280);
	*h = one_in(3) ? rnd_dim() : 1 + rnd(800);
	switch (rnd(4)) {
	case 0:
		*pitch = (uint32_t)rnd_val();
		break;
	case 1:
		*pitch = *w * cpp - 1;
		break;
	default:
		*pitch = *w * cpp;
	}
}

static void op_addfb(void)
{
	static const uint32_t bd[][2] = { { 32, 24 }, { 32, 32 }, { 16, 16 }, { 8, 8 },
					   { 24, 24 }, { 32, 30 }, { 15, 15 }, { 0, 0 } };
	int k = rnd(ARRAY_SIZE(bd));
	struct drm_mode_fb_cmd f = { .bpp = bd[k][0], .depth = bd[k][1],
				     .handle = pick_handle() };

	fb_geometry(&f.width, &f.height, &f.pitch, (f.bpp + 7) / 8);
	if (!xioctl(OP_ADDFB, fz.card, DRM_IOCTL_MODE_ADDFB, &f))
		pool_add(&fz.fbs, f.fb_id);
}

static void op_addfb2(void)
{
	struct drm_mode_fb_cmd2 f = {
		.pixel_format = one_in(16) ? (uint32_t)rnd64() : formats[rnd(ARRAY_SIZE(formats))],
		.flags = one_in(4) ? DRM_MODE_FB_MODIFIERS : 0,
	};
	int planes = one_in(4) ? 1 + rnd(4) : 1;

	if (one_in(16))
		f.flags = (uint32_t)rnd_val();
	fb_geometry(&f.width, &f.height, &f.pitches[0], one_in(4) ? 2 : 4);
	for (int i = 0; i < planes; i++) {
		f.handles[i] = pick_handle();
		f.pitches[i] = i ? f.pitches[0] : f.pitches[0];
		f.offsets[i] = one_in(2) ? 0 : (uint32_t)rnd_val();
		f.modifier[i] = modifiers[rnd(ARRAY_SIZE(modifiers))];
	}
	if (!xioctl(OP_ADDFB2, fz.card, DRM_IOCTL_MODE_ADDFB2, &f))
		pool_add(&fz.fbs, f.fb_id);
}

static void op_rmfb(void)
{
	struct drm_mode_closefb c = { .fb_id = pick_id(&fz.fbs), .pad = one_in(8) };
	uint32_t fb = c.fb_id;

	/* CLOSEFB is 6.12's; 6.1 refuses it as an unknown ioctl. */
	if (one_in(2) ? !xioctl(OP_RMFB, fz.card, DRM_IOCTL_MODE_RMFB, &fb) :
	    !xioctl(OP_CLOSEFB, fz.card, DRM_IOCTL_MODE_CLOSEFB, &c))
		pool_del(&fz.fbs, c.fb_id);
}

static void op_getfb(void)
{
	struct drm_mode_fb_cmd f = { .fb_id = pick_id(&fz.fbs) };
	struct drm_mode_fb_cmd2 f2 = { .fb_id = f.fb_id };

	if (one_in(2)) {
		if (!xioctl(OP_GETFB, fz.card, DRM_IOCTL_MODE_GETFB, &f) && f.handle)
			bo_keep(f.handle, 0);
		return;
	}
	if (!xioctl(OP_GETFB2, fz.card, DRM_IOCTL_MODE_GETFB2, &f2))
		for (int i = 0; i < 4; i++)
			if (f2.handles[i])
				bo_keep(f2.handles[i], 0);
}

static void op_dirtyfb(void)
{
	static struct drm_clip_rect clips[300];
	struct drm_mode_fb_dirty_cmd d = {
		.fb_id = pick_id(&fz.fbs), .flags = one_in(4) ? (uint32_t)rnd_val() : rnd(4),
		.color = (uint32_t)rnd64(), .num_clips = one_in(2) ? rnd(4) : rnd(300),
		.clips_ptr = one_in(8) ? 0 : (uintptr_t)clips,
	};

	for (uint32_t i = 0; i < d.num_clips; i++)
		clips[i] = (struct drm_clip_rect){ rnd(1400), rnd(900), rnd(1400), rnd(900) };
	xioctl(OP_DIRTYFB, fz.card, DRM_IOCTL_MODE_DIRTYFB, &d);
}

void gem_step(void)
{
	static void (*const ops[])(void) = {
		op_create_dumb, op_create_dumb, op_destroy_dumb, op_map_dumb, op_map_dumb,
		op_flink, op_flink, op_handle_to_fd, op_fd_to_handle, op_mmap_dmabuf,
		op_addfb, op_addfb2, op_addfb2, op_rmfb, op_getfb, op_dirtyfb,
	};

	if (one_in(32) && fz.nbos) {
		gem_close(pick_handle());
		return;
	}
	ops[rnd(ARRAY_SIZE(ops))]();
}
