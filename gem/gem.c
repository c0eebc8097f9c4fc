// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects: where a buffer lives and how it moves.
 *
 * Buffers are the TTM objects of drm_gem_vram_helper, as in-tree bochs has
 * them.  A new buffer lives in system memory (its pages are allocated, zeroed,
 * when first touched); pinning it for scanout (prepare_fb) moves it into VRAM,
 * and when VRAM is needed TTM evicts unpinned buffers back to system memory.
 * TTM's mmap faults follow every move: a move unmaps the buffer from every
 * process and the next access faults in its new home, so a mapping never
 * points at memory the buffer has left.  docs/MEMORY.md says why this model
 * and not a shadow copy, with the measurements.
 *
 * What kmsvt adds to the helper:
 * - the VRAM it manages is the buffers' range of the VRAM layout
 *   (layout.c), above the panic buffer;
 * - the console's buffer is pinned for good at the top of that range, so that
 *   fbcon can draw at any moment and masters get the contiguous rest;
 * - a bound on all buffers together (half of system memory, as TTM's own page
 *   limit), so a client that allocates without end gets -ENOMEM at creation
 *   rather than a SIGBUS or the OOM killer when it touches the pages.
 * Once a buffer is pinned, kms/plane.c checks that DISPI can address where
 * it landed.
 */
#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <drm/drm_atomic.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_framebuffer.h>
#include <drm/drm_gem.h>
#include <drm/drm_gem_vram_helper.h>
#include <drm/drm_mode.h>
#include <drm/drm_prime.h>
#include <drm/drm_print.h>
#include <drm/ttm/ttm_device.h>
#include <drm/ttm/ttm_resource.h>

#include "kmsvt_drv.h"

/* DISPI wants whole groups of 8 pixels per line; 64 bytes covers any cpp. */
#define KMSVT_PITCH_ALIGN 64

static struct ttm_resource_manager *kmsvt_ttm_man(struct kmsvt_device *kdev, int type)
{
	return ttm_manager_type(&kdev->drm.vram_mm->bdev, type);
}

/* Bytes of buffers in VRAM and in system memory. */
static void kmsvt_gem_usage(struct kmsvt_device *kdev, u64 *vram, u64 *sys)
{
	*vram = ttm_resource_manager_usage(kmsvt_ttm_man(kdev, TTM_PL_VRAM));
	*sys = ttm_resource_manager_usage(kmsvt_ttm_man(kdev, TTM_PL_SYSTEM));
}

int kmsvt_gem_dumb_create(struct drm_file *file, struct drm_device *drm,
			  struct drm_mode_create_dumb *args)
{
	struct kmsvt_device *kdev = to_kmsvt(drm);
	u64 pitch, size, vram, sys;

	/* The core already refused zero sizes and 32-bit overflow. */
	pitch = ALIGN((u64)args->width * DIV_ROUND_UP(args->bpp, 8), KMSVT_PITCH_ALIGN);
	if (pitch > U32_MAX)
		return -EINVAL;
	size = PAGE_ALIGN(pitch * args->height);
	/*
	 * A buffer larger than VRAM lives in system memory like any other
	 * until shown, and showing it is refused at the commit's check
	 * (kmsvt_gem_check_fb(), -ENOSPC): clients make such buffers to draw
	 * into or to read back (IGT's dumb_buffer makes 4032x2016x32).
	 */

	/*
	 * Concurrent creators can overshoot the bound by a buffer each: it is
	 * a bound on memory, not an exact quota.
	 */
	kmsvt_gem_usage(kdev, &vram, &sys);
	if (vram + sys + size > kdev->gem_limit)
		return -ENOMEM;

	return drm_gem_vram_fill_create_dumb(file, drm, 0, KMSVT_PITCH_ALIGN, args);
}

/* Foreign dma-bufs cannot be imported (no sg-table import); be explicit. */
bool kmsvt_gem_is_ours(const struct drm_gem_object *obj)
{
	return !obj->import_attach;
}

/*
 * A dma-buf of one of our own buffers imports as that buffer.  The DRM
 * core keeps one dma-buf per buffer and warns when another one comes back
 * (drm_gem_prime_fd_to_handle(): WARN_ON(obj->dma_buf != dma_buf)), yet
 * it makes two itself: when a buffer's last handle closes it forgets its
 * dma-buf, which lives on in an fd, and GETFB can give the buffer a new
 * handle that exports a second one.  Importing the first then warned
 * (found by kmsvt-fuzz).  Refuse that import instead, with -EBUSY; the
 * caller holds dev->object_name_lock, which guards obj->dma_buf.
 */
struct drm_gem_object *kmsvt_gem_prime_import(struct drm_device *drm, struct dma_buf *dma_buf)
{
	struct drm_gem_object *obj = drm_gem_prime_import(drm, dma_buf);

	if (!IS_ERR(obj) && obj->dma_buf && obj->dma_buf != dma_buf) {
		drm_gem_object_put(obj);
		return ERR_PTR(-EBUSY);
	}
	return obj;
}

/* VRAM offset of a pinned buffer, from the start of VRAM. */
s64 kmsvt_gem_vram_offset(struct drm_gem_object *obj)
{
	s64 offset = drm_gem_vram_offset(drm_gem_vram_of_gem(obj));

	return offset < 0 ? offset : offset + to_kmsvt(obj->dev)->layout.gem_start;
}

/*
 * The console's buffer: in VRAM for as long as the console exists, at the
 * top, out of the way of the buffers that come and go.
 */
int kmsvt_gem_pin_console(struct drm_gem_object *obj)
{
	struct kmsvt_device *kdev = to_kmsvt(obj->dev);
	int ret;

	ret = kmsvt_gem_vram_pin_top(drm_gem_vram_of_gem(obj));
	if (ret)
		return ret;
	kdev->console_obj = obj;
	WRITE_ONCE(kdev->console_size, obj->size);
	return 0;
}

void kmsvt_gem_unpin_console(struct drm_gem_object *obj)
{
	struct kmsvt_device *kdev = to_kmsvt(obj->dev);

	WRITE_ONCE(kdev->console_size, 0);
	kdev->console_obj = NULL;
	kmsvt_gem_vram_unpin(drm_gem_vram_of_gem(obj));
}

bool kmsvt_gem_is_console(const struct drm_gem_object *obj)
{
	return obj == to_kmsvt(obj->dev)->console_obj;
}

/*
 * Can a mode of @size bytes a frame be shown, with room for a second
 * buffer to flip to, next to the console's buffer?
 */
bool kmsvt_gem_mode_fits(struct kmsvt_device *kdev, u64 size)
{
	return size * 2 + READ_ONCE(kdev->console_size) <= kdev->layout.gem_size;
}

/* VRAM a buffer takes when pinned for scanout: none more for the console's. */
static u64 kmsvt_gem_scanout_size(struct kmsvt_device *kdev, const struct drm_framebuffer *fb)
{
	return fb->obj[0] == kdev->console_obj ? 0 : fb->obj[0]->size;
}

/*
 * Can @fb's buffer be pinned while @old's is still on screen?  A flip keeps
 * both pinned until it latches, next to the console's buffer.  A pair that
 * can never fit (framebuffers larger than the mode, for panning) is refused
 * here, at check, with -ENOSPC, rather than failing to pin in the commit.
 */
int kmsvt_gem_check_fb(struct kmsvt_device *kdev, const struct drm_framebuffer *fb,
		       const struct drm_framebuffer *old)
{
	u64 need = kmsvt_gem_scanout_size(kdev, fb) + READ_ONCE(kdev->console_size);

	if (old && old->obj[0] != fb->obj[0])
		need += kmsvt_gem_scanout_size(kdev, old);
	return need > kdev->drm.vram_mm->vram_size ? -ENOSPC : 0;
}

/*
 * A plane's framebuffer is pinned in VRAM from prepare_fb to cleanup_fb:
 * from before the commit that shows it until after the one that replaces
 * it has latched.  Pinning moves it in, evicting unpinned buffers if VRAM
 * is short; -ENOMEM when the pinned ones leave no room.
 *
 * The commit before ours unpins the buffer it replaced only in its cleanup,
 * after its flip has latched: a moment after a nonblocking flip returned to
 * its client.  When a new master flips in right then (a user switch), VRAM
 * holds one buffer too many for that moment only.  Wait for that cleanup,
 * once, and try again, rather than fail a commit that fits.
 */
int kmsvt_gem_prepare_fb(struct drm_plane *plane, struct drm_plane_state *state)
{
	struct drm_crtc_commit *prev = plane->state ? plane->state->commit : NULL;
	long left;
	int ret;

	ret = drm_gem_vram_plane_helper_prepare_fb(plane, state);
	if ((ret != -ENOMEM && ret != -ENOSPC) || !prev)
		return ret;
	left = wait_for_completion_interruptible_timeout(&prev->cleanup_done, HZ);
	if (left <= 0)
		return left < 0 ? left : ret;
	return drm_gem_vram_plane_helper_prepare_fb(plane, state);
}

void kmsvt_gem_cleanup_fb(struct drm_plane *plane, struct drm_plane_state *state)
{
	drm_gem_vram_plane_helper_cleanup_fb(plane, state);
}

int kmsvt_gem_init(struct kmsvt_device *kdev)
{
	kdev->gem_limit = (u64)totalram_pages() << (PAGE_SHIFT - 1);	/* half */
	return drmm_vram_helper_init(&kdev->drm, kdev->vram_base + kdev->layout.gem_start,
				     kdev->layout.gem_size);
}

static int kmsvt_vram_show(struct seq_file *m, void *data)
{
	struct drm_info_node *node = m->private;
	struct kmsvt_device *kdev = to_kmsvt(node->minor->dev);
	struct drm_printer p = drm_seq_file_printer(m);
	u64 vram, sys;

	kmsvt_gem_usage(kdev, &vram, &sys);
	drm_printf(&p, "vram_size: %llu\nvram_managed: %llu\nvram_used: %llu\n",
		   (u64)kdev->vram_size, (u64)kdev->drm.vram_mm->vram_size, vram);
	drm_printf(&p, "sysmem_used: %llu\ngem_limit: %llu\n", sys, kdev->gem_limit);
	ttm_resource_manager_debug(kmsvt_ttm_man(kdev, TTM_PL_VRAM), &p);
	return 0;
}

static const struct drm_info_list kmsvt_debugfs_list[] = {
	{ "vram", kmsvt_vram_show, 0 },
};

void kmsvt_gem_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(kmsvt_debugfs_list, ARRAY_SIZE(kmsvt_debugfs_list),
				 minor->debugfs_root, minor);
	drm_vram_mm_debugfs_init(minor);
}
