// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz, the card's mode objects: resources, connectors, CRTCs,
 * planes, properties and blobs, atomic and legacy modesetting, master and
 * authentication, vblank waits and sequences, events, unknown ioctls.
 * Each op builds one request, mostly from ids the process has seen (so
 * that it gets past the lookups), sometimes from edge values.
 */
#include "fuzz.h"

#include <poll.h>


#define OBJ_TYPES 9
static const uint32_t obj_types[OBJ_TYPES] = {
	DRM_MODE_OBJECT_CRTC, DRM_MODE_OBJECT_CONNECTOR, DRM_MODE_OBJECT_ENCODER,
	DRM_MODE_OBJECT_MODE, DRM_MODE_OBJECT_PROPERTY, DRM_MODE_OBJECT_FB,
	DRM_MODE_OBJECT_BLOB, DRM_MODE_OBJECT_PLANE, DRM_MODE_OBJECT_ANY,
};

static uint32_t ids_buf[256];
static uint64_t vals_buf[256];
static uint8_t big_buf[65536 + 64];

/* ---- opening and discovery ------------------------------------------- */

/*
 * O_NONBLOCK: reading events never waits.  Returns the fd or -errno; the
 * caps every modern client sets are set on it.
 */
int card_open(void)
{
	struct drm_set_client_cap cap = { .capability = DRM_CLIENT_CAP_ATOMIC, .value = 1 };
	double t0 = now();
	int fd = open(fz.card_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	record(OP_OPEN_CARD, fd < 0 ? errno : 0, t0);
	if (fd < 0)
		return -errno;
	xioctl(OP_SET_CLIENT_CAP, fd, DRM_IOCTL_SET_CLIENT_CAP, &cap);
	return fd;
}

static void learn_property(uint32_t obj, uint32_t id)
{
	struct drm_mode_property_enum enums[4];
	struct drm_mode_get_property gp = {
		.prop_id = id, .values_ptr = (uintptr_t)vals_buf, .count_values = 4,
		.enum_blob_ptr = (uintptr_t)enums, .count_enum_blobs = 4,
	};
	struct prop *p;

	if (fz.nprops >= (int)ARRAY_SIZE(fz.props) ||
	    xioctl(OP_GETPROPERTY, fz.card, DRM_IOCTL_MODE_GETPROPERTY, &gp))
		return;
	p = &fz.props[fz.nprops++];
	*p = (struct prop){ .obj = obj, .id = id, .flags = gp.flags };
	memcpy(p->name, gp.name, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = 0;
	p->nvals = gp.count_values < 4 ? gp.count_values : 4;
	if (gp.flags & (DRM_MODE_PROP_ENUM | DRM_MODE_PROP_BITMASK))
		for (int i = 0; i < p->nvals; i++)
			p->vals[i] = enums[i].value;
	else
		memcpy(p->vals, vals_buf, p->nvals * sizeof(uint64_t));
}

static void learn_props(uint32_t obj, uint32_t type)
{
	uint32_t props[32];
	struct drm_mode_obj_get_properties op = {
		.props_ptr = (uintptr_t)props, .prop_values_ptr = (uintptr_t)vals_buf,
		.count_props = 32, .obj_id = obj, .obj_type = type,
	};

	if (xioctl(OP_OBJ_GETPROPERTIES, fz.card, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &op))
		return;
	for (uint32_t i = 0; i < op.count_props && i < 32; i++)
		learn_property(obj, props[i]);
}

/* The modes of the first connected connector, the preferred one first. */
static void learn_connector(uint32_t id)
{
	static struct drm_mode_modeinfo modes[256];
	struct drm_mode_get_connector c = { .connector_id = id };

	/* Asked twice, as libdrm does: the count, then the modes. */
	if (xioctl(OP_GETCONNECTOR, fz.card, DRM_IOCTL_MODE_GETCONNECTOR, &c) ||
	    c.connection != 1 /* connected */ || fz.nmodes || !c.count_modes ||
	    c.count_modes > 256)
		return;
	c = (struct drm_mode_get_connector){ .connector_id = id, .count_modes = c.count_modes,
					     .modes_ptr = (uintptr_t)modes };
	if (xioctl(OP_GETCONNECTOR, fz.card, DRM_IOCTL_MODE_GETCONNECTOR, &c) ||
	    c.count_modes > 256)
		return;
	fz.nmodes = c.count_modes < 16 ? c.count_modes : 16;
	memcpy(fz.modes, modes, fz.nmodes * sizeof(modes[0]));
	for (uint32_t i = 1; i < c.count_modes; i++)
		if (modes[i].type & DRM_MODE_TYPE_PREFERRED) {
			fz.modes[0] = modes[i];
			if (i < 16)
				fz.modes[i] = modes[0];
			break;
		}
}

static void learn_planes(void)
{
	uint32_t planes[16];
	struct drm_mode_get_plane_res pr = { .plane_id_ptr = (uintptr_t)planes,
					     .count_planes = 16 };

	if (xioctl(OP_GETPLANERESOURCES, fz.card, DRM_IOCTL_MODE_GETPLANERESOURCES, &pr))
		return;
	for (uint32_t i = 0; i < pr.count_planes && i < 16; i++) {
		pool_add(&fz.planes, planes[i]);
		learn_props(planes[i], DRM_MODE_OBJECT_PLANE);
	}
}

/* What every process needs to build requests that get somewhere. */
void drm_discover(void)
{
	uint32_t crtcs[8], conns[8], encs[8];
	struct drm_mode_card_res r = {
		.crtc_id_ptr = (uintptr_t)crtcs, .count_crtcs = 8,
		.connector_id_ptr = (uintptr_t)conns, .count_connectors = 8,
		.encoder_id_ptr = (uintptr_t)encs, .count_encoders = 8,
	};

	fz.nprops = 0;
	fz.nmodes = 0;
	if (xioctl(OP_GETRESOURCES, fz.card, DRM_IOCTL_MODE_GETRESOURCES, &r))
		return;
	for (uint32_t i = 0; i < r.count_crtcs && i < 8; i++) {
		pool_add(&fz.crtcs, crtcs[i]);
		learn_props(crtcs[i], DRM_MODE_OBJECT_CRTC);
	}
	for (uint32_t i = 0; i < r.count_encoders && i < 8; i++)
		pool_add(&fz.encs, encs[i]);
	for (uint32_t i = 0; i < r.count_connectors && i < 8; i++) {
		pool_add(&fz.conns, conns[i]);
		learn_connector(conns[i]);
		learn_props(conns[i], DRM_MODE_OBJECT_CONNECTOR);
	}
	learn_planes();
}

/* ---- property values --------------------------------------------------- */

uint32_t prop_named(uint32_t obj, const char *name)
{
	for (int i = 0; i < fz.nprops; i++)
		if (fz.props[i].obj == obj && !strcmp(fz.props[i].name, name))
			return fz.props[i].id;
	return 0;
}

uint32_t mode_blob(int fd, const struct drm_mode_modeinfo *m)
{
	struct drm_mode_create_blob b = { .data = (uintptr_t)m, .length = sizeof(*m) };

	if (xioctl(OP_CREATEPROPBLOB, fd, DRM_IOCTL_MODE_CREATEPROPBLOB, &b))
		return 0;
	pool_add(&fz.blobs, b.blob_id);
	return b.blob_id;
}

/* A mode the connector offers, or one with random timings. */
static void rnd_mode(struct drm_mode_modeinfo *m)
{
	if (fz.nmodes && !one_in(4)) {
		*m = fz.modes[rnd(fz.nmodes)];
		if (one_in(3))
			((uint16_t *)m)[2 + rnd(10)] = (uint16_t)rnd_val();
		return;
	}
	rnd_fill(m, sizeof(*m));
	if (one_in(2)) {
		m->hdisplay = rnd_dim();
		m->vdisplay = rnd_dim();
	}
}

static uint64_t value_for(const struct prop *p)
{
	const char *n = p->name;
	struct drm_mode_modeinfo m;

	if (one_in(6))
		return rnd_val();
	if (!strcmp(n, "FB_ID"))
		return one_in(3) ? fz.scan[rnd(2)].fb : pick_id(&fz.fbs);
	if (!strcmp(n, "CRTC_ID"))
		return one_in(4) ? 0 : pick_id(&fz.crtcs);
	if (!strcmp(n, "MODE_ID")) {
		rnd_mode(&m);
		return one_in(3) ? pick_id(&fz.blobs) : mode_blob(fz.card, &m);
	}
	if (!strncmp(n, "SRC_", 4))
		return (uint64_t)rnd_dim() << (one_in(4) ? 0 : 16);
	if (!strncmp(n, "CRTC_", 5))
		return one_in(2) ? rnd_dim() : (uint64_t)(int64_t)(int32_t)rnd64();
	if (p->flags & DRM_MODE_PROP_RANGE && p->nvals == 2)
		return p->vals[rnd(2)] + rnd(3) - 1;
	if (p->nvals)
		return p->vals[rnd(p->nvals)];
	return rnd_val();
}

static const struct prop *rnd_prop(void)
{
	return fz.nprops ? &fz.props[rnd(fz.nprops)] : NULL;
}

/* ---- objects and properties ------------------------------------------- */

static uint64_t maybe_buf(void *buf)
{
	return one_in(8) ? 0 : (uintptr_t)buf;
}

/* Arrays are big enough for the counts asked; counts are often wrong. */
static uint32_t rnd_count(void)
{
	return one_in(3) ? rnd(4) : rnd(64);
}

static void op_getresources(void)
{
	struct drm_mode_card_res r = {
		.fb_id_ptr = maybe_buf(ids_buf), .count_fbs = rnd_count(),
		.crtc_id_ptr = maybe_buf(ids_buf + 64), .count_crtcs = rnd_count(),
		.connector_id_ptr = maybe_buf(ids_buf + 128), .count_connectors = rnd_count(),
		.encoder_id_ptr = maybe_buf(ids_buf + 192), .count_encoders = rnd_count(),
	};

	if (!xioctl(OP_GETRESOURCES, fz.card, DRM_IOCTL_MODE_GETRESOURCES, &r) &&
	    r.fb_id_ptr)
		for (uint32_t i = 0; i < r.count_fbs && i < 64; i++)
			pool_add(&fz.fbs, ids_buf[i]);
}

static void op_getconnector(void)
{
	struct drm_mode_get_connector c = {
		.connector_id = pick_id(&fz.conns),
		.modes_ptr = maybe_buf(big_buf), .count_modes = rnd_count(),
		.encoders_ptr = maybe_buf(ids_buf), .count_encoders = rnd_count(),
		.props_ptr = maybe_buf(ids_buf + 64), .count_props = rnd_count(),
		.prop_values_ptr = maybe_buf(vals_buf), .pad = one_in(16),
	};

	xioctl(OP_GETCONNECTOR, fz.card, DRM_IOCTL_MODE_GETCONNECTOR, &c);
}

static void op_getencoder(void)
{
	struct drm_mode_get_encoder e = { .encoder_id = pick_id(&fz.encs) };

	xioctl(OP_GETENCODER, fz.card, DRM_IOCTL_MODE_GETENCODER, &e);
}

static void op_getcrtc(void)
{
	struct drm_mode_crtc c = { .crtc_id = pick_id(&fz.crtcs) };

	if (!xioctl(OP_GETCRTC, fz.card, DRM_IOCTL_MODE_GETCRTC, &c) && c.fb_id)
		pool_add(&fz.fbs, c.fb_id);
}

static void op_getplane(void)
{
	struct drm_mode_get_plane p = {
		.plane_id = pick_id(&fz.planes),
		.format_type_ptr = maybe_buf(ids_buf), .count_format_types = rnd_count(),
	};
	struct drm_mode_get_plane_res pr = { .plane_id_ptr = maybe_buf(ids_buf),
					     .count_planes = rnd_count() };

	if (one_in(3))
		xioctl(OP_GETPLANERESOURCES, fz.card, DRM_IOCTL_MODE_GETPLANERESOURCES, &pr);
	else
		xioctl(OP_GETPLANE, fz.card, DRM_IOCTL_MODE_GETPLANE, &p);
}

static uint32_t rnd_obj(uint32_t *type)
{
	const struct prop *p = rnd_prop();

	*type = one_in(4) ? (uint32_t)rnd_val() : obj_types[rnd(OBJ_TYPES)];
	if (p && !one_in(4))
		return p->obj;
	return pick_id(one_in(2) ? &fz.fbs : &fz.blobs);
}

static void op_obj_getproperties(void)
{
	struct drm_mode_obj_get_properties op = {
		.props_ptr = maybe_buf(ids_buf), .prop_values_ptr = maybe_buf(vals_buf),
		.count_props = rnd_count(),
	};

	op.obj_id = rnd_obj(&op.obj_type);
	xioctl(OP_OBJ_GETPROPERTIES, fz.card, DRM_IOCTL_MODE_OBJ_GETPROPERTIES, &op);
}

static void op_getproperty(void)
{
	const struct prop *p = rnd_prop();
	struct drm_mode_get_property gp = {
		.prop_id = p && !one_in(4) ? p->id : (uint32_t)rnd_val(),
		.values_ptr = maybe_buf(vals_buf), .count_values = rnd_count(),
		.enum_blob_ptr = maybe_buf(big_buf), .count_enum_blobs = rnd_count(),
	};

	xioctl(OP_GETPROPERTY, fz.card, DRM_IOCTL_MODE_GETPROPERTY, &gp);
}

static void op_blob(void)
{
	static const uint32_t lens[] = {
		0, 1, sizeof(struct drm_mode_modeinfo) - 1, sizeof(struct drm_mode_modeinfo),
		sizeof(struct drm_mode_modeinfo) + 1, 4096, 65536, 0x7fffffff, 0xffffffff,
	};
	struct drm_mode_create_blob cb = { .data = maybe_buf(big_buf) };
	struct drm_mode_get_blob gb = { .blob_id = pick_id(&fz.blobs),
					.data = maybe_buf(big_buf) };
	struct drm_mode_destroy_blob db = { .blob_id = pick_id(&fz.blobs) };

	switch (rnd(3)) {
	case 0:
		/* Lengths past INT_MAX are refused before any allocation. */
		cb.length = one_in(3) ? rnd(65537) : lens[rnd(ARRAY_SIZE(lens))];
		rnd_fill(big_buf, 256);
		if (!xioctl(OP_CREATEPROPBLOB, fz.card, DRM_IOCTL_MODE_CREATEPROPBLOB, &cb))
			pool_add(&fz.blobs, cb.blob_id);
		break;
	case 1:
		gb.length = one_in(2) ? rnd(65537) : lens[rnd(7)];
		xioctl(OP_GETPROPBLOB, fz.card, DRM_IOCTL_MODE_GETPROPBLOB, &gb);
		break;
	default:
		if (!xioctl(OP_DESTROYPROPBLOB, fz.card, DRM_IOCTL_MODE_DESTROYPROPBLOB, &db))
			pool_del(&fz.blobs, db.blob_id);
	}
}

/* The type of an object we know, for requests that name it. */
static uint32_t obj_type_of(uint32_t id)
{
	for (int i = 0; i < fz.crtcs.n; i++)
		if (fz.crtcs.v[i] == id)
			return DRM_MODE_OBJECT_CRTC;
	for (int i = 0; i < fz.planes.n; i++)
		if (fz.planes.v[i] == id)
			return DRM_MODE_OBJECT_PLANE;
	return DRM_MODE_OBJECT_CONNECTOR;
}

static void op_setproperty(void)
{
	const struct prop *p = rnd_prop();
	struct drm_mode_obj_set_property sp = { 0 };
	struct drm_mode_connector_set_property cp = { 0 };

	if (!p)
		return;
	sp.prop_id = cp.prop_id = one_in(8) ? (uint32_t)rnd_val() : p->id;
	sp.value = cp.value = value_for(p);
	if (one_in(3)) {
		cp.connector_id = one_in(4) ? pick_id(&fz.conns) : p->obj;
		xioctl(OP_SETPROPERTY, fz.card, DRM_IOCTL_MODE_SETPROPERTY, &cp);
		return;
	}
	sp.obj_id = p->obj;
	sp.obj_type = obj_type_of(p->obj);
	if (one_in(8))
		sp.obj_id = rnd_obj(&sp.obj_type);
	xioctl(OP_OBJ_SETPROPERTY, fz.card, DRM_IOCTL_MODE_OBJ_SETPROPERTY, &sp);
}

/* ---- atomic ------------------------------------------------------------ */

static uint32_t rnd_atomic_flags(void)
{
	static const uint32_t f[] = {
		0, DRM_MODE_ATOMIC_TEST_ONLY, DRM_MODE_ATOMIC_NONBLOCK,
		DRM_MODE_ATOMIC_ALLOW_MODESET, DRM_MODE_PAGE_FLIP_EVENT,
		DRM_MODE_PAGE_FLIP_ASYNC,
	};
	uint32_t flags = 0;

	for (int i = 0, n = rnd(4); i < n; i++)
		flags |= f[rnd(ARRAY_SIZE(f))];
	if (one_in(20))
		flags |= 1u << rnd(32);
	return flags;
}

struct req {
	uint32_t objs[64], counts[64], props[256];
	uint64_t values[256];
	uint32_t nobj, nprop;
};

static void req_add(struct req *r, uint32_t obj, uint32_t prop, uint64_t val)
{
	if (r->nprop >= 256)
		return;
	if (!r->nobj || r->objs[r->nobj - 1] != obj) {
		if (r->nobj >= 64)
			return;
		r->objs[r->nobj] = obj;
		r->counts[r->nobj++] = 0;
	}
	r->counts[r->nobj - 1]++;
	r->props[r->nprop] = prop;
	r->values[r->nprop++] = val;
}

/* Submit r; a blocking commit waits for a vblank at most, so it is guarded. */
static int req_commit(int fd, struct req *r, uint32_t flags, int bad_counts)
{
	struct drm_mode_atomic a = {
		.flags = flags, .count_objs = r->nobj,
		.objs_ptr = (uintptr_t)r->objs, .count_props_ptr = (uintptr_t)r->counts,
		.props_ptr = (uintptr_t)r->props, .prop_values_ptr = (uintptr_t)r->values,
		.user_data = rnd64(),
	};

	if (bad_counts) {
		a.count_objs = one_in(2) ? 64 : (uint32_t)rnd_val();
		if (one_in(2))
			a.props_ptr = 0;
		if (one_in(4))
			a.reserved = 1;
	}
	return gioctl(OP_ATOMIC, fd, DRM_IOCTL_MODE_ATOMIC, &a, 500);
}

static void add_obj_props(struct req *r, uint32_t obj)
{
	for (int i = 0, n = 1 + rnd(8); i < n; i++) {
		const struct prop *p = &fz.props[rnd(fz.nprops)];

		if (p->obj != obj && !one_in(8))
			continue;
		req_add(r, obj, one_in(16) ? (uint32_t)rnd_val() : p->id, value_for(p));
	}
}

/* Random objects with random properties: most fail in the core's checks. */
static void atomic_random(void)
{
	struct req r = { 0 };
	uint32_t type;

	if (!fz.nprops)
		return;
	for (int i = 0, n = rnd(5); i < n; i++)
		add_obj_props(&r, one_in(6) ? pick_id(&fz.fbs) : rnd_obj(&type));
	req_commit(fz.card, &r, rnd_atomic_flags(), one_in(16));
}

/*
 * The whole pipe from buffer s at a mode that fits it; with mutate, one
 * value replaced by a random one.  What a compositor commits, so that the
 * driver's checks and commit paths see requests that pass.  Returns -errno.
 */
int commit_scanout(int fd, const struct scan *s, uint32_t flags, int mutate)
{
	uint32_t crtc = fz.crtcs.v[0], conn = fz.conns.v[0], pl = fz.planes.v[0];
	const struct drm_mode_modeinfo *m = &fz.modes[rnd(fz.nmodes)];
	struct req r = { 0 };
	uint32_t blob;
	int ret;

	if (!fz.crtcs.n || !fz.conns.n || !fz.planes.n || !fz.nmodes || !s->fb)
		return -ENOENT;
	if (m->hdisplay > s->w || m->vdisplay > s->h)
		m = &fz.modes[0];
	blob = one_in(3) ? 0 : mode_blob(fd, m);
	if (blob) {
		req_add(&r, crtc, prop_named(crtc, "MODE_ID"), blob);
		req_add(&r, crtc, prop_named(crtc, "ACTIVE"), 1);
		req_add(&r, conn, prop_named(conn, "CRTC_ID"), crtc);
	}
	req_add(&r, pl, prop_named(pl, "FB_ID"), s->fb);
	req_add(&r, pl, prop_named(pl, "CRTC_ID"), crtc);
	req_add(&r, pl, prop_named(pl, "SRC_X"), 0);
	req_add(&r, pl, prop_named(pl, "SRC_Y"), 0);
	req_add(&r, pl, prop_named(pl, "SRC_W"), (uint64_t)m->hdisplay << 16);
	req_add(&r, pl, prop_named(pl, "SRC_H"), (uint64_t)m->vdisplay << 16);
	req_add(&r, pl, prop_named(pl, "CRTC_X"), 0);
	req_add(&r, pl, prop_named(pl, "CRTC_Y"), 0);
	req_add(&r, pl, prop_named(pl, "CRTC_W"), m->hdisplay);
	req_add(&r, pl, prop_named(pl, "CRTC_H"), m->vdisplay);
	if (mutate)
		r.values[rnd(r.nprop)] = rnd_val();
	ret = req_commit(fd, &r, flags | (blob ? DRM_MODE_ATOMIC_ALLOW_MODESET : 0), 0);
	if (blob) {
		struct drm_mode_destroy_blob db = { .blob_id = blob };

		xioctl(OP_DESTROYPROPBLOB, fd, DRM_IOCTL_MODE_DESTROYPROPBLOB, &db);
		pool_del(&fz.blobs, blob);
	}
	return ret;
}

static void op_atomic(void)
{
	static const uint32_t flips[] = {
		DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT, DRM_MODE_ATOMIC_NONBLOCK,
		DRM_MODE_ATOMIC_TEST_ONLY, 0, DRM_MODE_PAGE_FLIP_EVENT,
	};

	if (one_in(2))
		atomic_random();
	else
		commit_scanout(fz.card, &fz.scan[rnd(2)],
			       one_in(4) ? rnd_atomic_flags() : flips[rnd(ARRAY_SIZE(flips))],
			       one_in(3));
}

/* ---- legacy modesetting ------------------------------------------------ */

static void op_setcrtc(void)
{
	uint32_t conns[4] = { pick_id(&fz.conns), pick_id(&fz.conns) };
	struct drm_mode_crtc c = {
		.crtc_id = pick_id(&fz.crtcs), .set_connectors_ptr = maybe_buf(conns),
		.count_connectors = one_in(4) ? rnd(5) : 1,
		.fb_id = one_in(2) ? fz.scan[rnd(2)].fb : pick_id(&fz.fbs),
		.x = one_in(2) ? 0 : rnd_dim(), .y = one_in(2) ? 0 : rnd_dim(),
		.mode_valid = !one_in(8),
	};

	rnd_mode(&c.mode);
	if (one_in(8))
		c.fb_id = (uint32_t)-1;	/* "keep the current framebuffer" */
	gioctl(OP_SETCRTC, fz.card, DRM_IOCTL_MODE_SETCRTC, &c, 500);
}

static void op_page_flip(void)
{
	struct drm_mode_crtc_page_flip_target f = {
		.crtc_id = pick_id(&fz.crtcs),
		.fb_id = one_in(4) ? pick_id(&fz.fbs) : fz.scan[rnd(2)].fb,
		.flags = one_in(2) ? DRM_MODE_PAGE_FLIP_EVENT : (uint32_t)rnd(64),
		.sequence = one_in(2) ? 0 : (uint32_t)rnd_val(),
		.user_data = rnd64(),
	};

	if (one_in(16))
		f.flags = (uint32_t)rnd_val();
	xioctl(OP_PAGE_FLIP, fz.card, DRM_IOCTL_MODE_PAGE_FLIP, &f);
}

static void op_setplane(void)
{
	struct drm_mode_set_plane p = {
		.plane_id = pick_id(&fz.planes), .crtc_id = pick_id(&fz.crtcs),
		.fb_id = one_in(3) ? pick_id(&fz.fbs) : fz.scan[rnd(2)].fb,
		.flags = one_in(8) ? (uint32_t)rnd_val() : 0,
		.crtc_x = one_in(2) ? 0 : (int32_t)rnd_val(), .crtc_y = one_in(2) ? 0 : rnd(900),
		.crtc_w = rnd_dim(), .crtc_h = rnd_dim(),
		.src_x = one_in(2) ? 0 : (uint32_t)rnd_val(), .src_y = 0,
	};

	p.src_w = one_in(2) ? p.crtc_w << 16 : (uint32_t)rnd_val();
	p.src_h = one_in(2) ? p.crtc_h << 16 : (uint32_t)rnd_val();
	if (one_in(2) && fz.nmodes) {
		p.crtc_w = fz.modes[0].hdisplay;
		p.crtc_h = fz.modes[0].vdisplay;
		p.src_w = p.crtc_w << 16;
		p.src_h = p.crtc_h << 16;
	}
	gioctl(OP_SETPLANE, fz.card, DRM_IOCTL_MODE_SETPLANE, &p, 500);
}

static void op_cursor_gamma(void)
{
	static uint16_t lut[3][4096];
	struct drm_mode_cursor2 c = {
		.flags = one_in(4) ? (uint32_t)rnd_val() : 1 + rnd(3),
		.crtc_id = pick_id(&fz.crtcs), .x = (int32_t)rnd_val(), .y = rnd(800),
		.width = rnd(128), .height = rnd(128), .handle = rnd(64),
	};
	struct drm_mode_crtc_lut l = {
		.crtc_id = pick_id(&fz.crtcs), .gamma_size = one_in(2) ? 256 : rnd(4097),
		.red = maybe_buf(lut[0]), .green = (uintptr_t)lut[1], .blue = (uintptr_t)lut[2],
	};

	switch (rnd(4)) {
	case 0:
		xioctl(OP_CURSOR, fz.card, DRM_IOCTL_MODE_CURSOR, &c);
		break;
	case 1:
		xioctl(OP_CURSOR, fz.card, DRM_IOCTL_MODE_CURSOR2, &c);
		break;
	case 2:
		xioctl(OP_GETGAMMA, fz.card, DRM_IOCTL_MODE_GETGAMMA, &l);
		break;
	default:
		rnd_fill(lut, sizeof(lut[0]));
		gioctl(OP_SETGAMMA, fz.card, DRM_IOCTL_MODE_SETGAMMA, &l, 500);
	}
}

/* ---- master, auth, caps ------------------------------------------------ */

/*
 * A known DRM core bug (drm_auth.c, on 6.1 and 6.12 alike): a file that got
 * its magic under one master and then becomes master itself (SET_MASTER
 * while not master: drm_new_set_master() gives it a new master) leaves its
 * magic in the old master's map, and removes it from the new one's when it
 * closes.  The old master's AUTH_MAGIC of that magic then writes into the
 * freed drm_file (slub: "Poison overwritten", one byte 0x01 at offset 0 of
 * a kmalloc-512 object).  It needs CAP_SYS_ADMIN.  Unless --core-bugs asks
 * for it, a file that has a magic does not ask to be master.
 */
static int master_allowed(void)
{
	return fz.core_bugs || !fz.has_magic;
}

static void op_master(void)
{
	struct drm_auth a = { 0 };

	switch (rnd(fz.role == R_MASTER ? 8 : 5)) {
	case 0:
		xioctl(OP_DROP_MASTER, fz.card, DRM_IOCTL_DROP_MASTER, NULL);
		break;
	case 1:
		if (xioctl(OP_GET_MAGIC, fz.card, DRM_IOCTL_GET_MAGIC, &a))
			break;
		fz.has_magic = 1;
		if (fz.role == R_UNAUTH)
			__atomic_store_n(&sh->magic, a.magic, __ATOMIC_RELAXED);
		break;
	case 2:
		/* Authenticates the unauthenticated client, sometimes. */
		a.magic = one_in(2) ? __atomic_load_n(&sh->magic, __ATOMIC_RELAXED) :
			(uint32_t)rnd_val();
		xioctl(OP_AUTH_MAGIC, fz.card, DRM_IOCTL_AUTH_MAGIC, &a);
		break;
	default:
		if (master_allowed())
			xioctl(OP_SET_MASTER, fz.card, DRM_IOCTL_SET_MASTER, NULL);
	}
}

static void op_caps(void)
{
	char name[64], date[64], desc[64];
	struct drm_version v = {
		.name = name, .name_len = rnd(65), .date = one_in(4) ? NULL : date,
		.date_len = rnd(65), .desc = desc, .desc_len = rnd(65),
	};
	struct drm_get_cap gc = { .capability = one_in(4) ? rnd64() : rnd(0x20) };
	struct drm_set_client_cap sc = { .capability = rnd(8), .value = rnd(3) };

	switch (rnd(3)) {
	case 0:
		xioctl(OP_VERSION, fz.card, DRM_IOCTL_VERSION, &v);
		break;
	case 1:
		xioctl(OP_GET_CAP, fz.card, DRM_IOCTL_GET_CAP, &gc);
		break;
	default:
		if (one_in(4))
			sc.value = rnd_val();
		xioctl(OP_SET_CLIENT_CAP, fz.card, DRM_IOCTL_SET_CLIENT_CAP, &sc);
	}
}

/* ---- vblank, sequences, events ---------------------------------------- */

static void op_wait_vblank(void)
{
	static const uint32_t types[] = {
		_DRM_VBLANK_ABSOLUTE, _DRM_VBLANK_RELATIVE, _DRM_VBLANK_RELATIVE | _DRM_VBLANK_EVENT,
		_DRM_VBLANK_ABSOLUTE | _DRM_VBLANK_EVENT, _DRM_VBLANK_RELATIVE | _DRM_VBLANK_NEXTONMISS,
		_DRM_VBLANK_ABSOLUTE | _DRM_VBLANK_NEXTONMISS | _DRM_VBLANK_EVENT,
		_DRM_VBLANK_SECONDARY, _DRM_VBLANK_SIGNAL, _DRM_VBLANK_FLIP,
	};
	union drm_wait_vblank v = { 0 };

	v.request.type = types[rnd(ARRAY_SIZE(types))];
	if (one_in(4))
		v.request.type |= (rnd(32) << _DRM_VBLANK_HIGH_CRTC_SHIFT) &
				  _DRM_VBLANK_HIGH_CRTC_MASK;
	if (one_in(16))
		v.request.type = (uint32_t)rnd_val();
	v.request.sequence = one_in(2) ? rnd(3) : (uint32_t)rnd_val();
	v.request.signal = rnd64();
	/* A wait for a count never reached ends with the guard: EINTR. */
	gioctl(OP_WAIT_VBLANK, fz.card, DRM_IOCTL_WAIT_VBLANK, &v, 50 + rnd(100));
}

static void op_sequence(void)
{
	struct drm_crtc_get_sequence g = { .crtc_id = pick_id(&fz.crtcs) };
	struct drm_crtc_queue_sequence q = {
		.crtc_id = pick_id(&fz.crtcs), .user_data = rnd64(),
		.flags = one_in(8) ? (uint32_t)rnd_val() : rnd(4),
		.sequence = one_in(2) ? rnd(4) : rnd_val(),
	};

	if (one_in(2)) {
		xioctl(OP_CRTC_GET_SEQUENCE, fz.card, DRM_IOCTL_CRTC_GET_SEQUENCE, &g);
		return;
	}
	if (!(q.flags & DRM_CRTC_SEQUENCE_RELATIVE) && one_in(2)) {
		g.crtc_id = q.crtc_id;
		if (!xioctl(OP_CRTC_GET_SEQUENCE, fz.card, DRM_IOCTL_CRTC_GET_SEQUENCE, &g))
			q.sequence = g.sequence + rnd(3);
	}
	xioctl(OP_CRTC_QUEUE_SEQUENCE, fz.card, DRM_IOCTL_CRTC_QUEUE_SEQUENCE, &q);
}

/* Events are read now and then, in odd sizes, never waited for long. */
static void op_read_events(void)
{
	struct pollfd p = { .fd = fz.card, .events = POLLIN };
	size_t sizes[] = { 0, 1, 16, 31, 32, sizeof(struct drm_event_vblank), 4096 };
	double t0 = now();
	ssize_t n;

	if (one_in(2))
		poll(&p, 1, rnd(20));
	n = read(fz.card, big_buf, sizes[rnd(ARRAY_SIZE(sizes))]);
	record(OP_READ_EVENTS, n < 0 ? errno : 0, t0);
}

/*
 * Unknown or misused DRM ioctls: a random number in the DRM range with a
 * buffer of small values.  Small, so that lengths inside cannot ask the
 * kernel for gigabytes, and pointers inside are invalid (EFAULT).
 */
static void op_unknown(void)
{
	static uint32_t arg[4096];
	unsigned int nr = one_in(2) ? 0xd0 + rnd(0x30) : rnd(256);
	unsigned int size = one_in(4) ? rnd(16384) : 4 * rnd(64);
	unsigned long req = _IOC(rnd(4), DRM_IOCTL_BASE, nr, size);

	for (int i = 0; i < 64; i++)
		arg[i] = one_in(2) ? 0 : rnd(256);
	xioctl(OP_DRM_UNKNOWN, fz.card, req, arg);
}

/* A new open: the old file goes, with what it held (events, blobs, fbs). */
static void op_reopen(void)
{
	int fd = card_open();
	double t0 = now();

	if (fd < 0)
		return;
	gem_release_all();
	record(OP_CLOSE_CARD, close(fz.card) ? errno : 0, t0);
	fz.card = fd;
	fz.fbs.n = fz.blobs.n = 0;
	fz.has_magic = 0;
}

void drm_step(void)
{
	static void (*const ops[])(void) = {
		op_getresources, op_getconnector, op_getencoder, op_getcrtc, op_getplane,
		op_obj_getproperties, op_getproperty, op_blob, op_blob, op_setproperty,
		op_atomic, op_atomic, op_atomic, op_atomic, op_setcrtc, op_page_flip,
		op_page_flip, op_setplane, op_cursor_gamma, op_master, op_caps,
		op_wait_vblank, op_sequence, op_read_events, op_read_events, op_unknown,
	};

	scan_ensure();
	if (one_in(2)) {
		gem_step();
		return;
	}
	if (one_in(3000)) {
		op_reopen();
		return;
	}
	ops[rnd(ARRAY_SIZE(ops))]();
}
