// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's prime group: dma-buf export/import between two opens share
 * memory (dumb mmap on each, and mmap of the dma-buf fd); mmap at an offset;
 * a buffer exported twice (its handles closed in between, a framebuffer
 * keeping it) imports its first dma-buf with a clean error.
 */
#include "kmsvt-test.h"

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

/*
 * Export a framebuffer's buffer, close its handle (the buffer lives on in
 * the framebuffer and the dma-buf), take a new handle with GETFB, export
 * again: a second dma-buf for the same buffer.  Importing the first gave a
 * WARNING in the DRM core; it must be a clean error (-EBUSY), or work.
 */
static void prime_second_dmabuf(struct dev *d)
{
	struct drm_mode_create_dumb c;
	int x = -1, y = -1, ret;
	uint32_t fb = 0, h = 0;
	drmModeFBPtr f;

	ret = dumb_create(d->fd, 64, 64, 32, &c);
	ret = ret ? ret : add_fb(d->fd, 64, 64, c.handle, c.pitch, 0, &fb);
	ret = ret ? ret : drmPrimeHandleToFD(d->fd, c.handle, DRM_CLOEXEC, &x) ? -errno : 0;
	gem_close(d->fd, c.handle);
	f = ret ? NULL : drmModeGetFB(d->fd, fb);
	ret = ret ? ret : !f || !f->handle ? -ENOENT : 0;
	ret = ret ? ret : drmPrimeHandleToFD(d->fd, f->handle, DRM_CLOEXEC, &y) ? -errno : 0;
	if (check(!ret, "prime_second_dmabuf_setup", "%s", err(ret))) {
		ret = drmPrimeFDToHandle(d->fd, x, &h) ? -errno : 0;
		check(!ret || ret == -EBUSY, "prime_first_dmabuf_import_clean", "%s", err(ret));
	}
	if (f && f->handle)
		gem_close(d->fd, f->handle);
	if (h)
		gem_close(d->fd, h);
	drmModeFreeFB(f);
	if (fb)
		drmModeRmFB(d->fd, fb);
	if (x >= 0)
		close(x);
	if (y >= 0)
		close(y);
}

void group_prime(struct dev *d)
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
	prime_second_dmabuf(d);
}
