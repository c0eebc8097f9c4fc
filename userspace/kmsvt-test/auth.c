// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's auth group: an unauthenticated open gets -EACCES from
 * GEM_FLINK/GEM_OPEN; the master's flink works; after drmAuthMagic GEM_OPEN
 * works.
 */
#include "kmsvt-test.h"

/* A second open that is neither master nor (as root would be) authenticated. */
static int open_unauth(const char *path)
{
	int dropped = sysadmin(0) == 0, fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (dropped)
		sysadmin(1);
	return fd;
}

static int authenticated(int fd)
{
	unsigned long magic, iocs;
	int auth = -1, pid, uid;

	if (drmGetClient(fd, 0, &auth, &pid, &uid, &magic, &iocs))
		return -1;
	return auth;
}

static int flink(int fd, uint32_t handle, uint32_t *name)
{
	struct drm_gem_flink f = { .handle = handle };
	int ret = xioctl(fd, DRM_IOCTL_GEM_FLINK, &f);

	*name = f.name;
	return ret;
}

static int gem_open(int fd, uint32_t name, uint32_t *handle, uint64_t *size)
{
	struct drm_gem_open o = { .name = name };
	int ret = xioctl(fd, DRM_IOCTL_GEM_OPEN, &o);

	*handle = o.handle;
	if (size)
		*size = o.size;
	return ret;
}

void gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	if (handle)
		xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

/*
 * Write through fd a's mapping of ha, read through fd b's of hb, and the
 * other way round.  Returns 0, -errno, or 1 for a mismatch.
 */
int share_check(int fa, uint32_t ha, int fb, uint32_t hb, size_t size)
{
	uint32_t *pa = dumb_map(fa, ha, size, 0), *pb = dumb_map(fb, hb, size, 0);
	int ret = 0;

	if (!pa || !pb) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; i < size / 4; i += 1021)
		pa[i] = 0xa5000000 | i;
	for (size_t i = 0; i < size / 4 && !ret; i += 1021)
		ret = pb[i] != (0xa5000000 | i);
	for (size_t i = 7; i < size / 4; i += 1021)
		pb[i] = 0x5a000000 | i;
	for (size_t i = 7; i < size / 4 && !ret; i += 1021)
		ret = pa[i] != (0x5a000000 | i);
out:
	if (pa)
		munmap(pa, size);
	if (pb)
		munmap(pb, size);
	return ret;
}

const char *share_err(int ret)
{
	return ret == 1 ? "contents differ" : err(ret);
}

/* Unauthenticated fd2: flink and GEM_OPEN refused; the master's flink works. */
static void auth_refused(struct dev *d, int fd2, uint32_t mh, uint32_t *name)
{
	struct drm_mode_create_dumb c;
	uint32_t n2 = 0, h2 = 0;
	int ret;

	ret = dumb_create(fd2, 64, 64, 32, &c);
	if (check(!ret, "auth_unauth_dumb_create", "%s", err(ret))) {
		ret = flink(fd2, c.handle, &n2);
		expect("auth_unauth_flink_refused", ret, EACCES, 0);
		dumb_destroy(fd2, c.handle);
	}
	ret = flink(d->fd, mh, name);
	check(!ret && *name, "auth_master_flink", "%s, name %u", err(ret), *name);
	ret = gem_open(fd2, *name, &h2, NULL);
	expect("auth_unauth_gem_open_refused", ret, EACCES, 0);
	if (!ret)
		gem_close(fd2, h2);
}

/* After drmAuthMagic, fd2 opens the master's buffer and sees its contents. */
static void auth_granted(struct dev *d, int fd2, uint32_t mh, uint32_t name, uint64_t size)
{
	uint32_t h2 = 0, n2 = 0;
	uint64_t sz = 0;
	drm_magic_t magic;
	int ret;

	ret = drmGetMagic(fd2, &magic) ? -errno : 0;
	ret = ret ? ret : (drmAuthMagic(d->fd, magic) ? -errno : 0);
	check(!ret && authenticated(fd2) == 1, "auth_magic", "%s, authenticated %d", err(ret),
	      authenticated(fd2));
	ret = gem_open(fd2, name, &h2, &sz);
	if (!check(!ret && sz == size, "auth_gem_open_after_auth", "%s, size %llu of %llu",
		   err(ret), (unsigned long long)sz, (unsigned long long)size))
		return;
	ret = share_check(d->fd, mh, fd2, h2, size);
	check(!ret, "auth_gem_open_shares_memory", "%s", share_err(ret));
	ret = flink(fd2, h2, &n2);
	check(!ret && n2 == name, "auth_flink_after_auth", "%s, name %u (master's %u)", err(ret),
	      n2, name);
	gem_close(fd2, h2);
}

void group_auth(struct dev *d)
{
	struct drm_mode_create_dumb c;
	uint32_t name = 0;
	int fd2, ret;

	fd2 = open_unauth(d->path);
	if (!checkq(fd2 >= 0, "auth_open_second", "%s", strerror(errno)))
		return;
	ret = dumb_create(d->fd, 256, 64, 32, &c);
	if (check(!ret && authenticated(fd2) == 0 && drmIsMaster(fd2) == 0, "auth_setup",
		  "buffer %s; second fd authenticated %d, master %d", err(ret),
		  authenticated(fd2), drmIsMaster(fd2))) {
		auth_refused(d, fd2, c.handle, &name);
		if (name)
			auth_granted(d, fd2, c.handle, name, c.size);
	}
	if (!ret)
		dumb_destroy(d->fd, c.handle);
	close(fd2);
}
