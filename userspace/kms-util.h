/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers the kmsvt tools share: a clock, ioctls that return -errno,
 * dumb buffers, property lookup, groups selected by name.  Header-only (static inline), so each tool
 * stays one file to build and read.
 */
#ifndef KMSVT_KMS_UTIL_H
#define KMSVT_KMS_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* For qsort() of doubles. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* drmIoctl() (which restarts on EINTR), returning 0 or -errno. */
static inline int xioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static inline int dumb_create(int fd, uint32_t w, uint32_t h, uint32_t bpp,
			      struct drm_mode_create_dumb *c)
{
	memset(c, 0, sizeof(*c));
	c->width = w;
	c->height = h;
	c->bpp = bpp;
	return xioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, c);
}

static inline int dumb_destroy(int fd, uint32_t handle)
{
	struct drm_mode_destroy_dumb d = { .handle = handle };

	return xioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &d);
}

/* Map len bytes of a dumb buffer from off; NULL with errno set on failure. */
static inline void *dumb_map(int fd, uint32_t handle, size_t len, uint64_t off)
{
	struct drm_mode_map_dumb m = { .handle = handle };
	void *p;
	int ret;

	ret = xioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &m);
	if (ret) {
		errno = -ret;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, m.offset + off);
	return p == MAP_FAILED ? NULL : p;
}

/* The id of obj's property called name (0 if none), and its value in *val. */
static inline uint32_t prop_id(int fd, uint32_t obj, uint32_t type, const char *name,
			       uint64_t *val)
{
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0;

	for (uint32_t i = 0; props && i < props->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && !strcmp(p->name, name)) {
			id = p->prop_id;
			if (val)
				*val = props->prop_values[i];
		}
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

/*
 * A part of a tool that its command line selects by name: the groups of
 * checks or benchmarks.  struct dev is each tool's own.
 */
struct dev;

struct group {
	const char *name;
	void (*run)(struct dev *d);
	const char *help;
};

static inline const struct group *find_group(const struct group *g, size_t n,
					     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

/* 0 if each of names[0..count) is a group, else 2 (bad usage), said on stderr. */
static inline int check_groups(const char *tool, const struct group *g, size_t n,
			       char **names, int count)
{
	for (int i = 0; i < count; i++) {
		if (!find_group(g, n, names[i])) {
			fprintf(stderr, "%s: no group %s (see --list)\n", tool, names[i]);
			return 2;
		}
	}
	return 0;
}

/* Run the groups named, in that order, or all of them if none is. */
static inline void run_groups(struct dev *d, const struct group *g, size_t n,
			      char **names, int count)
{
	for (size_t i = 0; !count && i < n; i++)
		g[i].run(d);
	for (int i = 0; i < count; i++)
		find_group(g, n, names[i])->run(d);
}

#endif
