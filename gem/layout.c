// SPDX-License-Identifier: GPL-2.0
/*
 * The VRAM layout: what lives where, start to end.  Nothing else decides
 * a place in VRAM; docs/MEMORY.md has the picture.
 *
 *   0                 the panic buffer: 8 bpp, indexed colours, shown
 *                     only when the panic screen cannot read the scanout
 *   pstore_start      the pstore strip (panic/pstore.c): the last panic's
 *                     log, kept across a reboot; nothing else writes it
 *   gem_start         the buffers' range, TTM's (drm_gem_vram_helper):
 *                     masters' buffers come and go from the bottom up,
 *   ... top           the console's buffer is pinned at the top for as
 *                     long as the console exists (kmsvt_gem_pin_console)
 *
 * The panic buffer is at the start because DISPI reaches a scanout through
 * a line offset of at most 12000 lines: at the top of 16 MiB, a 640-byte
 * pitch would need line 25734.
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <drm/drm_fourcc.h>

#include "kmsvt_drv.h"

/*
 * The pstore strip's size.  Its place must be the same from one boot to the
 * next, whatever else changed, so it depends only on the panic buffer's
 * (which depends only on the VRAM size).  64 KiB by default: on 16 MiB a
 * panning framebuffer twice 1280x800 wide, shown beside the console's buffer
 * and the picture it replaces, leaves 84 KiB of the buffers' range spare.
 */
static unsigned int kmsvt_pstore_kib = 64;
module_param_named(pstore, kmsvt_pstore_kib, uint, 0444);
MODULE_PARM_DESC(pstore,
		 "KiB of VRAM keeping the last panic across a reboot (16-1024; 0 = off) [64]");

#define KMSVT_PSTORE_MIN	SZ_16K
#define KMSVT_PSTORE_MAX	SZ_1M

/*
 * The panic buffer's modes, largest first: it takes the largest that needs
 * at most 1/48 of VRAM.  Small on purpose: the default 16 MiB hold the
 * console's buffer and three more at 1280x800x32 with 384 KiB to spare, and
 * those three (the session on screen's two and the front buffer of the one
 * switched away from) keep a user switch free of buffer moves
 * (docs/SWITCHING.md).
 */
static const u16 kmsvt_panic_sizes[][2] = { { 1024, 768 }, { 800, 600 }, { 640, 480 } };
#define KMSVT_PANIC_SHARE	48

static void kmsvt_layout_panic(struct kmsvt_device *kdev, struct kmsvt_scanout *so)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kmsvt_panic_sizes); i++) {
		so->width = kmsvt_panic_sizes[i][0];
		so->height = kmsvt_panic_sizes[i][1];
		if ((u64)so->width * so->height * KMSVT_PANIC_SHARE <= kdev->vram_size)
			break;
	}
	so->format = DRM_FORMAT_C8;
	so->cpp = 1;
	so->bpp = 8;
	so->pitch = so->width;
	so->offset = 0;
	so->blank = false;
}

/* At most 1/16 of VRAM, so that small VRAM still holds a mode's buffers. */
static u64 kmsvt_layout_pstore_size(struct kmsvt_device *kdev)
{
	u64 size = (u64)kmsvt_pstore_kib * SZ_1K;

	size = min3(size, (u64)KMSVT_PSTORE_MAX, (u64)kdev->vram_size / 16);
	size = round_down(size, SZ_4K);
	return size < KMSVT_PSTORE_MIN ? 0 : size;
}

/* At probe, once the VRAM size is known and before the buffers' range exists. */
void kmsvt_vram_layout(struct kmsvt_device *kdev)
{
	struct kmsvt_vram_layout *l = &kdev->layout;

	kmsvt_layout_panic(kdev, &l->panic);
	l->pstore_start = PAGE_ALIGN((u64)l->panic.pitch * l->panic.height);
	l->pstore_size = kmsvt_layout_pstore_size(kdev);
	l->gem_start = l->pstore_start + l->pstore_size;
	l->gem_size = kdev->vram_size - l->gem_start;
}
