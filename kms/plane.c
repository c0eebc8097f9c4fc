// SPDX-License-Identifier: GPL-2.0
/*
 * The primary plane: one linear framebuffer, scanned out in place from VRAM
 * by pointing DISPI's virtual-screen offsets at it.  gem/ pins it there for
 * as long as a plane state uses it.
 */
#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_blend.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_plane_helper.h>
#include <drm/drm_print.h>

#include "kmsvt_drv.h"

static const u32 kmsvt_formats[] = {
	DRM_FORMAT_XRGB8888,
	DRM_FORMAT_ARGB8888,	/* alpha ignored: nothing to blend with */
	DRM_FORMAT_RGB565,
	DRM_FORMAT_XRGB1555,
};

static const u64 kmsvt_modifiers[] = {
	DRM_FORMAT_MOD_LINEAR,
	DRM_FORMAT_MOD_INVALID,
};

static u32 kmsvt_dispi_bpp(u32 format)
{
	switch (format) {
	case DRM_FORMAT_RGB565:
		return 16;
	case DRM_FORMAT_XRGB1555:
		return 15;
	default:
		return 32;
	}
}

/* The scanout for @state with the framebuffer's buffer at VRAM offset @base. */
static void kmsvt_plane_scanout_at(const struct drm_plane_state *state, u64 base,
				   struct kmsvt_scanout *so)
{
	const struct drm_framebuffer *fb = state->fb;

	so->width = drm_rect_width(&state->dst);
	so->height = drm_rect_height(&state->dst);
	so->format = fb->format->format;
	so->pitch = fb->pitches[0];
	so->cpp = fb->format->cpp[0];
	so->bpp = kmsvt_dispi_bpp(fb->format->format);
	so->offset = base + fb->offsets[0] +
		     (u64)(state->src.y1 >> 16) * so->pitch +
		     (state->src.x1 >> 16) * so->cpp;
	so->blank = false;
}

/* For a visible plane whose framebuffer is pinned (after prepare_fb). */
void kmsvt_plane_scanout(const struct drm_plane_state *state, struct kmsvt_scanout *so)
{
	kmsvt_plane_scanout_at(state, kmsvt_gem_vram_offset(state->fb->obj[0]), so);
}

static int kmsvt_plane_atomic_check(struct drm_plane *plane, struct kmsvt_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct drm_plane_state *old = drm_atomic_get_old_plane_state(state, plane);
	struct drm_crtc_state *crtc_state = NULL;
	struct kmsvt_scanout so;
	int ret;

	if (new->crtc)
		crtc_state = drm_atomic_get_new_crtc_state(state, new->crtc);

	/*
	 * A plane may keep its framebuffer and CRTC while that CRTC is off
	 * (a client that turns only the CRTC off): it is then not visible.
	 */
	ret = drm_atomic_helper_check_plane_state(new, crtc_state, DRM_PLANE_NO_SCALING,
						  DRM_PLANE_NO_SCALING, false, true);
	if (ret || !new->visible)
		return ret;

	/* Where the buffer will sit is known at prepare_fb; check the rest. */
	kmsvt_plane_scanout_at(new, 0, &so);
	ret = kmsvt_hw_scanout_valid(&so, drm_rect_height(&new->dst));
	if (ret) {
		drm_dbg_kms(plane->dev, "scanout offset %llu pitch %u not programmable\n",
			    so.offset, so.pitch);
		return -EINVAL;
	}
	ret = kmsvt_gem_check_fb(to_kmsvt(plane->dev), new->fb, old->visible ? old->fb : NULL);
	if (ret)
		drm_dbg_kms(plane->dev, "[FB:%d] and the fb on screen do not fit in VRAM\n",
			    new->fb->base.id);
	return ret;
}

static void kmsvt_plane_atomic_update(struct drm_plane *plane, struct kmsvt_atomic_state *state)
{
	struct drm_plane_state *new = drm_atomic_get_new_plane_state(state, plane);
	struct kmsvt_device *kdev = to_kmsvt(plane->dev);
	struct drm_crtc_state *crtc_state;
	struct kmsvt_scanout so;

	if (!new->crtc || !new->visible) {
		/* Turned off on a running CRTC: black from the next vblank. */
		if (kmsvt_scanout_is_on(kdev))
			kmsvt_scanout_queue_blank(kdev);
		return;
	}
	crtc_state = drm_atomic_get_new_crtc_state(state, new->crtc);
	/* A modeset programs the whole mode in the CRTC's enable instead. */
	if (crtc_state && drm_atomic_crtc_needs_modeset(crtc_state))
		return;

	kmsvt_plane_scanout(new, &so);
	kmsvt_scanout_queue(kdev, &so);
}

/*
 * Pin the framebuffer in VRAM (gem/ moves it there), then check that DISPI
 * can address where it landed: its offsets only reach so far.
 */
static int kmsvt_plane_prepare_fb(struct drm_plane *plane, struct drm_plane_state *state)
{
	struct kmsvt_scanout so;
	int ret;

	ret = kmsvt_gem_prepare_fb(plane, state);
	if (ret || !state->fb || !state->visible)
		return ret;
	kmsvt_plane_scanout(state, &so);
	if (kmsvt_hw_scanout_valid(&so, so.height)) {
		drm_dbg_kms(plane->dev, "buffer at %llu out of DISPI's reach\n", so.offset);
		kmsvt_gem_cleanup_fb(plane, state);
		return -ENOSPC;
	}
	return 0;
}

static const struct drm_plane_helper_funcs kmsvt_plane_helper_funcs = {
	.prepare_fb = kmsvt_plane_prepare_fb,
	.cleanup_fb = kmsvt_gem_cleanup_fb,
	.atomic_check = kmsvt_plane_atomic_check,
	.atomic_update = kmsvt_plane_atomic_update,
};

static const struct drm_plane_funcs kmsvt_plane_funcs = {
	.update_plane = drm_atomic_helper_update_plane,
	.disable_plane = drm_atomic_helper_disable_plane,
	.destroy = drm_plane_cleanup,
	.reset = drm_atomic_helper_plane_reset,
	.atomic_duplicate_state = drm_atomic_helper_plane_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_plane_destroy_state,
};

int kmsvt_plane_init(struct kmsvt_device *kdev)
{
	int ret;

	ret = drm_universal_plane_init(&kdev->drm, &kdev->primary, 0, &kmsvt_plane_funcs,
				       kmsvt_formats, ARRAY_SIZE(kmsvt_formats),
				       kmsvt_modifiers, DRM_PLANE_TYPE_PRIMARY, NULL);
	if (ret)
		return ret;
	drm_plane_helper_add(&kdev->primary, &kmsvt_plane_helper_funcs);
	drm_plane_enable_fb_damage_clips(&kdev->primary);
	/*
	 * ARGB8888's alpha is ignored: the plane is alone over black, where
	 * premultiplied blending gives the colour unchanged, as does "None".
	 * Coverage would darken it, so it is not offered.  (7.x warns about
	 * an alpha format without this property.)
	 */
	return drm_plane_create_blend_mode_property(&kdev->primary,
						    BIT(DRM_MODE_BLEND_PIXEL_NONE) |
						    BIT(DRM_MODE_BLEND_PREMULTI));
}
