/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences between the target kernels (scripts/kernels:
 * Debian 12's 6.1 to sid's and trixie-backports' 7.x), each a named
 * feature.  Those a stable update may bring are found in the headers by
 * Kbuild (KMSVT_HAVE_*), the rest by version, here only.
 */
#ifndef KMSVT_COMPAT_H
#define KMSVT_COMPAT_H

#include <linux/fb.h>
#include <linux/hrtimer.h>
#include <linux/version.h>
#include <drm/drm_client.h>
#include <drm/drm_edid.h>
#include <drm/drm_gem_vram_helper.h>

/* 6.4 split mode adding out of drm_edid_connector_update(). */
static inline int kmsvt_edid_update_modes(struct drm_connector *connector,
					  const struct drm_edid *edid)
{
#if KERNEL_VERSION(6, 4, 0) <= LINUX_VERSION_CODE
	drm_edid_connector_update(connector, edid);
	return drm_edid_connector_add_modes(connector);
#else
	return drm_edid_connector_update(connector, edid);
#endif
}

/* 6.6 stopped defaulting fb_ops' read/write/mmap to the I/O-memory helpers. */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#define kmsvt_fb_read fb_io_read
#define kmsvt_fb_write fb_io_write
#else
#define kmsvt_fb_read NULL
#define kmsvt_fb_write NULL
#endif

/* 6.3 made vma->vm_flags read-only outside vm_flags_set(). */
static inline void kmsvt_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * Later 6.12.y releases pass drm_client_funcs.restore a "force" flag
 * (Kbuild defines KMSVT_CLIENT_RESTORE_FORCE when the headers have it);
 * kmsvt's console never forces its way past a DRM master.
 */
#ifdef KMSVT_CLIENT_RESTORE_FORCE
#define KMSVT_CLIENT_RESTORE_PARAMS struct drm_client_dev *client, bool force
#else
#define KMSVT_CLIENT_RESTORE_PARAMS struct drm_client_dev *client
#endif

/* 6.6 removed FBINFO_DEFAULT (it was 0). */
#ifndef FBINFO_DEFAULT
#define FBINFO_DEFAULT 0
#endif

/* 6.6 made the PRIME ioctls and dma-buf mmap work without driver callbacks. */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#define KMSVT_PRIME_CALLBACKS
#else
#define KMSVT_PRIME_CALLBACKS					\
	.prime_handle_to_fd = drm_gem_prime_handle_to_fd,	\
	.prime_fd_to_handle = drm_gem_prime_fd_to_handle,	\
	.gem_prime_mmap = drm_gem_prime_mmap,
#endif

/*
 * 6.9 retyped the console driver ops (struct consw): con_putc takes a u16,
 * con_cursor and con_blank bools, the font ops a glyph pitch; fbdev/con.c
 * has one set of entry points for each side.
 */
#define KMSVT_CONSW_6_9 (KERNEL_VERSION(6, 9, 0) <= LINUX_VERSION_CODE)

/*
 * Later kernels dropped consw.con_flush_scrollback: ESC [ 3 J then calls
 * con_switch for the VT in front (Kbuild looks for it in the headers).
 */
#ifdef KMSVT_HAVE_CON_FLUSH_SCROLLBACK
#define KMSVT_CONSW_FLUSH_SCROLLBACK 1
#else
#define KMSVT_CONSW_FLUSH_SCROLLBACK 0
#endif

/*
 * 7.x renamed the atomic state, struct drm_atomic_state, to struct
 * drm_atomic_commit (Kbuild looks for it in the headers); the helpers'
 * callbacks take the new name.
 */
#ifdef KMSVT_HAVE_DRM_ATOMIC_COMMIT
#define kmsvt_atomic_state drm_atomic_commit
#else
#define kmsvt_atomic_state drm_atomic_state
#endif

/*
 * 7.x hands .fb_create the format the core looked up, and
 * drm_gem_fb_create_with_funcs() takes it (Kbuild looks for it).
 */
#ifdef KMSVT_HAVE_FB_CREATE_INFO
#define KMSVT_FB_CREATE_INFO_PARAM const struct drm_format_info *info,
#define kmsvt_gem_fb_create_with_funcs(drm, file, info, cmd, funcs) \
	drm_gem_fb_create_with_funcs(drm, file, info, cmd, funcs)
#else
#define KMSVT_FB_CREATE_INFO_PARAM
#define kmsvt_gem_fb_create_with_funcs(drm, file, info, cmd, funcs) \
	drm_gem_fb_create_with_funcs(drm, file, cmd, funcs)
#endif

/* 7.x dropped struct drm_driver's .date (Kbuild looks for it). */
#ifdef KMSVT_HAVE_DRIVER_DATE
#define KMSVT_DRIVER_DATE(d) .date = (d),
#else
#define KMSVT_DRIVER_DATE(d)
#endif

/* 7.x's connector .mode_valid takes a const mode (Kbuild looks for it). */
#ifdef KMSVT_HAVE_CONST_MODE_VALID
#define KMSVT_MODE_VALID_CONST const
#else
#define KMSVT_MODE_VALID_CONST
#endif

/*
 * 6.13 replaced hrtimer_init() and setting .function with hrtimer_setup()
 * (Kbuild looks for it).
 */
static inline void kmsvt_hrtimer_setup(struct hrtimer *timer,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       clockid_t clock, enum hrtimer_mode mode)
{
#ifdef KMSVT_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * 7.x calls the DRM client's buffer (a dumb buffer with a framebuffer)
 * drm_client_buffer_create_dumb()/drm_client_buffer_delete(); before, it was
 * drm_client_framebuffer_create()/_delete() (Kbuild looks for the new one).
 */
#ifdef KMSVT_HAVE_CLIENT_BUFFER_CREATE_DUMB
#define kmsvt_client_buffer_create drm_client_buffer_create_dumb
#define kmsvt_client_buffer_delete drm_client_buffer_delete
#else
#define kmsvt_client_buffer_create drm_client_framebuffer_create
#define kmsvt_client_buffer_delete drm_client_framebuffer_delete
#endif

/*
 * Pin a VRAM helper buffer at the top of VRAM, for good (the console's).
 * 7.x no longer exports drm_gem_vram_pin(); without it this is what that
 * did: place the buffer in VRAM from the top, validate, pin, all under the
 * buffer's reservation (Kbuild looks for drm_gem_vram_pin in the headers).
 */
#ifdef KMSVT_HAVE_GEM_VRAM_PIN
static inline int kmsvt_gem_vram_pin_top(struct drm_gem_vram_object *gbo)
{
	return drm_gem_vram_pin(gbo, DRM_GEM_VRAM_PL_FLAG_VRAM | DRM_GEM_VRAM_PL_FLAG_TOPDOWN);
}

static inline void kmsvt_gem_vram_unpin(struct drm_gem_vram_object *gbo)
{
	drm_gem_vram_unpin(gbo);
}
#else
#include <drm/ttm/ttm_bo.h>

static inline int kmsvt_gem_vram_pin_top(struct drm_gem_vram_object *gbo)
{
	struct ttm_operation_ctx ctx = { .interruptible = false };
	int ret;

	ret = ttm_bo_reserve(&gbo->bo, true, false, NULL);
	if (ret)
		return ret;
	gbo->placements[0] = (struct ttm_place) {
		.mem_type = TTM_PL_VRAM,
		.flags = TTM_PL_FLAG_TOPDOWN,
	};
	gbo->placement.placement = gbo->placements;
	gbo->placement.num_placement = 1;
	ret = gbo->bo.pin_count ? 0 : ttm_bo_validate(&gbo->bo, &gbo->placement, &ctx);
	if (!ret)
		ttm_bo_pin(&gbo->bo);
	ttm_bo_unreserve(&gbo->bo);
	return ret;
}

static inline void kmsvt_gem_vram_unpin(struct drm_gem_vram_object *gbo)
{
	/* Not interruptible: an unpin must happen. */
	if (WARN_ON(ttm_bo_reserve(&gbo->bo, false, false, NULL)))
		return;
	ttm_bo_unpin(&gbo->bo);
	ttm_bo_unreserve(&gbo->bo);
}
#endif

/* 6.12 passes kmsg dumpers a struct kmsg_dump_detail. */
#define KMSVT_KMSG_DUMP_DETAIL (KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE)

#endif /* KMSVT_COMPAT_H */
