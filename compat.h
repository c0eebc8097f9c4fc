/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel API differences between the two target kernels
 * (Debian 12's 6.1 and bookworm-backports' 6.12).
 */
#ifndef KMSVT_COMPAT_H
#define KMSVT_COMPAT_H

#include <linux/fb.h>
#include <linux/version.h>
#include <drm/drm_edid.h>

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

/* 6.12 passes kmsg dumpers a struct kmsg_dump_detail. */
#define KMSVT_KMSG_DUMP_DETAIL (KERNEL_VERSION(6, 12, 0) <= LINUX_VERSION_CODE)

#endif /* KMSVT_COMPAT_H */
