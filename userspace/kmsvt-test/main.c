// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test: finding the connector, CRTC and plane; options; the group table.
 */
#include "kmsvt-test.h"
#include "tool.h"

/* ---- setup ------------------------------------------------------------- */

static int find_props(struct dev *d)
{
	const struct {
		uint32_t obj, type;
		const char *name;
		uint32_t *id;
	} t[] = {
		{ d->crtc, DRM_MODE_OBJECT_CRTC, "MODE_ID", &d->p.crtc_mode_id },
		{ d->crtc, DRM_MODE_OBJECT_CRTC, "ACTIVE", &d->p.crtc_active },
		{ d->conn, DRM_MODE_OBJECT_CONNECTOR, "CRTC_ID", &d->p.conn_crtc_id },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "FB_ID", &d->p.fb_id },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_ID", &d->p.crtc_id },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_X", &d->p.src_x },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_Y", &d->p.src_y },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_W", &d->p.src_w },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "SRC_H", &d->p.src_h },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_X", &d->p.crtc_x },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_Y", &d->p.crtc_y },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_W", &d->p.crtc_w },
		{ d->plane, DRM_MODE_OBJECT_PLANE, "CRTC_H", &d->p.crtc_h },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		*t[i].id = prop_id(d->fd, t[i].obj, t[i].type, t[i].name, NULL);
		if (!*t[i].id)
			return check(0, "setup", "object %u has no %s property", t[i].obj,
				     t[i].name), -1;
	}
	return 0;
}

/* The connected connector's preferred mode, and a smaller one for variety. */
static void pick_modes(struct dev *d, const drmModeConnector *c)
{
	const drmModeModeInfo *m = &c->modes[0];

	for (int i = 0; i < c->count_modes; i++)
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			m = &c->modes[i];
			break;
		}
	d->mode = *m;
	d->alt = *m;
	for (int i = 0; i < c->count_modes; i++) {
		const drmModeModeInfo *a = &c->modes[i];

		if (a->hdisplay <= m->hdisplay && a->vdisplay <= m->vdisplay &&
		    (a->hdisplay != m->hdisplay || a->vdisplay != m->vdisplay)) {
			d->alt = *a;
			break;
		}
	}
	d->refresh = m->clock * 1000.0 / ((double)m->htotal * m->vtotal);
	d->big = *m;
	for (int i = 0; i < c->count_modes; i++)
		if ((uint64_t)c->modes[i].hdisplay * c->modes[i].vdisplay >
		    (uint64_t)d->big.hdisplay * d->big.vdisplay)
			d->big = c->modes[i];
}

static uint32_t find_connector(struct dev *d, const drmModeRes *res)
{
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(d->fd, res->connectors[i]);
		drmModeEncoder *e = NULL;

		if (c && c->connection == DRM_MODE_CONNECTED && c->count_modes && c->count_encoders)
			e = drmModeGetEncoder(d->fd, c->encoders[0]);
		for (int k = 0; e && k < res->count_crtcs; k++)
			if (e->possible_crtcs & (1u << k)) {
				d->conn = c->connector_id;
				d->crtc = res->crtcs[k];
				pick_modes(d, c);
				break;
			}
		drmModeFreeEncoder(e);
		drmModeFreeConnector(c);
		if (d->conn)
			return 1u << crtc_index(d);
	}
	return 0;
}

static void find_plane(struct dev *d, uint32_t crtc_mask)
{
	drmModePlaneRes *pres = drmModeGetPlaneResources(d->fd);

	for (uint32_t i = 0; pres && i < pres->count_planes && !d->plane; i++) {
		drmModePlane *p = drmModeGetPlane(d->fd, pres->planes[i]);
		uint64_t type = 0;

		if (p && (p->possible_crtcs & crtc_mask) &&
		    prop_id(d->fd, p->plane_id, DRM_MODE_OBJECT_PLANE, "type", &type) &&
		    type == DRM_PLANE_TYPE_PRIMARY)
			d->plane = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(pres);
}

static int setup(struct dev *d)
{
	drmModeRes *res;
	drmVersion *ver;
	uint32_t mask = 0;

	d->fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return check(0, "setup", "%s: %s", d->path, strerror(errno)), -1;
	if (drmSetClientCap(d->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
	    drmSetClientCap(d->fd, DRM_CLIENT_CAP_ATOMIC, 1))
		return check(0, "setup", "no atomic modesetting: %s", strerror(errno)), -1;
	if (!drmIsMaster(d->fd))
		return check(0, "setup", "not DRM master: does another client hold it?"), -1;
	res = drmModeGetResources(d->fd);
	if (res)
		mask = find_connector(d, res);
	drmModeFreeResources(res);
	if (mask)
		find_plane(d, mask);
	if (!d->plane)
		return check(0, "setup", "no connected connector, CRTC and primary plane"), -1;
	ver = drmGetVersion(d->fd);
	diag("%s %s: connector %u, crtc %u, plane %u, mode %ux%u@%.3f Hz, other mode %ux%u",
	     d->path, ver ? ver->name : "?", d->conn, d->crtc, d->plane, d->mode.hdisplay,
	     d->mode.vdisplay, d->refresh, d->alt.hdisplay, d->alt.vdisplay);
	drmFreeVersion(ver);
	return find_props(d);
}

/* ---- main -------------------------------------------------------------- */

static const struct group groups[] = {
	{ "atomic", group_atomic,
	  "TEST_ONLY full modesets: valid ones pass and change nothing; scaling,\n"
	  "           a 1366-wide mode and an 8192x8192 mode fail with -EINVAL" },
	{ "flip", group_flip,
	  "nonblocking flips with events between two buffers: every event\n"
	  "           arrives in commit order, sequence and timestamps increase, no\n"
	  "           event is stamped before its commit, a second commit while one\n"
	  "           is pending gets -EBUSY, flip rate = refresh rate; a wait for an\n"
	  "           event's own vblank gives the event's time; plane and CRTC off\n"
	  "           events; a blocking commit returns with the previous event\n"
	  "           readable; framebuffers twice the mode's width flip or are\n"
	  "           refused at check" },
	{ "vblank", group_vblank,
	  "drmWaitVBlank relative 1 and 10; 60 vblanks take 60 frames; the CRTC\n"
	  "           off (plane kept): waits -EINVAL, the counter goes on after" },
	{ "auth", group_auth,
	  "an unauthenticated open gets -EACCES from GEM_FLINK/GEM_OPEN; the\n"
	  "           master's flink works; after drmAuthMagic GEM_OPEN works" },
	{ "prime", group_prime,
	  "dma-buf export/import between two opens share memory (dumb mmap\n"
	  "           on each, and mmap of the dma-buf fd); mmap at an offset; a\n"
	  "           buffer's first dma-buf after a second export: a clean error" },
	{ "bad", group_bad,
	  "bad dumb sizes, framebuffers past their buffer, impossible mode,\n"
	  "           flips on an off CRTC, double frees, closing with a flip\n"
	  "           pending: clean errors, and the device keeps working" },
	{ "mem", group_mem,
	  "dumb buffers at the largest mode until refused (a clean -ENOMEM or\n"
	  "           -ENOSPC, usable buffers before it); a new buffer is zero; one\n"
	  "           mapping read and written byte for byte as its buffer moves\n"
	  "           into VRAM, out and back; primary plane off with the CRTC on;\n"
	  "           impossible timings refused" },
	{ "turns", group_turns,
	  "4 clients, each with 2 buffers at the preferred mode, allocated at\n"
	  "           once, take turns as master: modeset, 60 vsynced flips" },
	{ "perm", group_perm,
	  "a file that is not master gets -EACCES from atomic commits (TEST_ONLY\n"
	  "           too), page flips, SetCrtc, SetPlane, and no handle from GETFB;\n"
	  "           GEM handles mean nothing in another file; a new dumb buffer\n"
	  "           never shows a freed one's pixels (in system memory or VRAM)" },
};

#define N_GROUPS ARRAY_SIZE(groups)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kmsvt-test [-d /dev/dri/cardN] [-n FLIPS] [-t PERCENT] [--all | GROUP...]\n"
		"Check a KMS driver through the standard ioctls (libdrm).  Must be the\n"
		"DRM master (the first to open the card; in-kernel fbdev does not count)\n"
		"and, for the auth and perm groups, root (CAP_SYS_ADMIN is dropped for a\n"
		"moment).\n"
		"\n"
		"  -d, --device PATH   device node (default /dev/dri/card0)\n"
		"  -n, --flips N       page flips in the flip group (default 120)\n"
		"  -t, --tolerance P   allowed flip rate / vblank timing error, percent\n"
		"                      (default 5)\n"
		"  -a, --all           run every group (also the default with no GROUP)\n"
		"  -l, --list          list the groups\n"
		"  -h, --help          this text\n"
		"\n"
		"With KMSVT_TEST_SYNC=DIR in the environment, the mem and turns groups\n"
		"stop where the screen is worth looking at: they create DIR/NAME and\n"
		"wait (up to a minute) for DIR/NAME.ack.\n"
		"\n"
		"Groups, run in the order given:\n");
	for (size_t i = 0; i < N_GROUPS; i++)
		fprintf(f, "  %-8s %s\n", groups[i].name, groups[i].help);
	fprintf(f,
		"\n"
		"Output: \"ok NAME[: detail]\" or \"not ok NAME: detail\" a check, \"# ...\"\n"
		"diagnostics, and last \"N passed, N failed\".  Exit status 0 if all\n"
		"passed, 1 if any failed, 2 for bad usage.  The display is left as the\n"
		"checks leave it: the console comes back when this master closes.\n");
}

static int parse(int argc, char **argv, struct dev *d)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "flips", required_argument, NULL, 'n' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "all", no_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	long n;
	int o;

	while ((o = getopt_long(argc, argv, "d:n:t:alh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			d->path = optarg;
			break;
		case 'n':
			if (tool_long("kmsvt-test", o, optarg, 2, MAX_FLIPS, &n))
				return 2;
			d->flips = n;
			break;
		case 't':
			if (tool_double("kmsvt-test", o, optarg, 0, &d->tol))
				return 2;
			d->tol /= 100;
			break;
		case 'a':
			break;
		case 'l':
			for (size_t i = 0; i < N_GROUPS; i++)
				printf("%s\n", groups[i].name);
			return 0;
		default:
			return tool_help(o, usage);
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct dev d = { .path = "/dev/dri/card0", .fd = -1, .flips = 120, .tol = 0.05 };
	int ret = parse(argc, argv, &d);

	if (ret >= 0)
		return ret;
	if (check_groups("kmsvt-test", groups, N_GROUPS, argv + optind, argc - optind))
		return 2;
	if (setup(&d) == 0)
		run_groups(&d, groups, N_GROUPS, argv + optind, argc - optind);
	if (n_skip)
		diag("%d skipped (counted as passed)", n_skip);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	if (d.fd >= 0)
		close(d.fd);
	return n_fail ? 1 : 0;
}
