/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsvt: DRM/KMS driver for QEMU's Bochs/std-VGA display.
 *
 * One device structure, its state grouped by the folder that owns it:
 * kms/ (the device's registers, one CRTC -> primary plane -> encoder ->
 * connector chain, the scanout queue), gem/ (buffers and the VRAM layout),
 * fbdev/ (the console) and panic/.  A folder writes only its own fields;
 * the others go through its functions below.  Folders depend downwards:
 * fbdev/ and panic/ on kms/, gem/ and draw/; kms/ on gem/; this file's
 * kmsvt_drv.c, the root, on all of them.
 */
#ifndef KMSVT_DRV_H
#define KMSVT_DRV_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <drm/drm_connector.h>
#include <drm/drm_crtc.h>
#include <drm/drm_device.h>
#include <drm/drm_encoder.h>
#include <drm/drm_gem.h>
#include <drm/drm_plane.h>

#include "compat.h"

#define KMSVT_NAME "kmsvt"

/* What the scanout registers point at, or are to point at. */
struct kmsvt_scanout {
	u32 width;		/* visible pixels */
	u32 height;
	u32 format;		/* DRM fourcc */
	u32 pitch;		/* bytes per line */
	u32 cpp;		/* bytes per pixel */
	u32 bpp;		/* DISPI BPP value (8, 15, 16, 32) */
	u64 offset;		/* VRAM offset of the first visible pixel */
	bool blank;		/* CRTC on, plane off: show black */
};

/*
 * Where things live in VRAM, start to end (gem/layout.c, docs/MEMORY.md):
 * the panic buffer, the pstore strip, then the buffers' range, the
 * console's buffer pinned at its top.
 */
struct kmsvt_vram_layout {
	struct kmsvt_scanout panic;	/* 8 bpp, at offset 0 */
	u64 pstore_start;		/* the pstore strip, 0 bytes when off */
	u64 pstore_size;
	u64 gem_start;			/* the buffers' range */
	u64 gem_size;
};

struct kmsvt_device {
	struct drm_device drm;

	/* kms/hw.c: the device */
	void __iomem *mmio;
	void __iomem *vram;		/* whole BAR 0, write-combined */
	resource_size_t vram_base;
	resource_size_t vram_size;
	u16 dispi_id;
	u32 qext_size;			/* QEMU extended registers, 0 if none */
	const struct drm_edid *edid;

	/* kms/: the display pipeline */
	struct drm_plane primary;
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;

	/* kms/crtc.c: emulated vblank, applies the pending scanout each period */
	struct hrtimer vblank_timer;
	ktime_t frame_period;

	/* kms/scanout.c: what DISPI shows, and what it shows next */
	/* Raw: the panic path trylocks it with interrupts off. */
	raw_spinlock_t scanout_lock;	/* protects the fields below */
	struct kmsvt_scanout scanout;
	struct kmsvt_scanout pending;
	ktime_t queued_at;		/* when pending or flip_event came */
	bool pending_valid;
	/*
	 * The event of the commit whose scanout is pending: sent right after
	 * that scanout latches.  Holds a vblank reference.
	 */
	struct drm_pending_vblank_event *flip_event;
	bool vblank_running;
	bool scanout_on;		/* the CRTC is enabled */
	bool taken;			/* the panic screen owns DISPI */
	u32 banner_height;		/* oops banner rows the console keeps off */
	struct kmsvt_stats {		/* debugfs kmsvt_stats */
		u64 modesets;		/* CRTC enables: DISPI mode programmed */
		u64 plane_updates;	/* new scanouts queued without a modeset */
		u64 latched;		/* of those, applied to DISPI */
		u64 mode_reloads;	/* latched with DISPI's mode registers */
		u64 blanks;		/* picture to black: plane or CRTC off */
	} stats;

	/* gem/ */
	struct kmsvt_vram_layout layout;
	u64 gem_limit;			/* all buffers together, in bytes */
	u64 console_size;		/* VRAM the console's buffer keeps */
	const struct drm_gem_object *console_obj;	/* that buffer */

	/* fbdev/ */
	struct kmsvt_fbdev *fbdev;	/* the console, once registered */

	/* panic/ */
	struct kmsvt_panic *panic;
};

static inline struct kmsvt_device *to_kmsvt(struct drm_device *drm)
{
	return container_of(drm, struct kmsvt_device, drm);
}

/* kms/hw.c: every DISPI and VGA register access */
int kmsvt_hw_init(struct kmsvt_device *kdev);
void kmsvt_hw_fini(struct kmsvt_device *kdev);
void kmsvt_hw_set_mode(struct kmsvt_device *kdev, const struct kmsvt_scanout *so);
void kmsvt_hw_set_base(struct kmsvt_device *kdev, const struct kmsvt_scanout *so);
void kmsvt_hw_disable(struct kmsvt_device *kdev);
void kmsvt_hw_blank(struct kmsvt_device *kdev, bool blank);
void kmsvt_hw_resume(struct kmsvt_device *kdev);
void kmsvt_hw_set_palette(struct kmsvt_device *kdev, const u32 *rgb, unsigned int n);
const struct drm_edid *kmsvt_hw_read_edid(struct kmsvt_device *kdev);
int kmsvt_hw_scanout_valid(const struct kmsvt_scanout *so, u32 height);

/* kms/scanout.c: the scanout queue and its latch */
void kmsvt_scanout_init(struct kmsvt_device *kdev);
void kmsvt_scanout_queue(struct kmsvt_device *kdev, const struct kmsvt_scanout *so);
void kmsvt_scanout_queue_blank(struct kmsvt_device *kdev);
void kmsvt_scanout_blank_mode(const struct drm_display_mode *mode, struct kmsvt_scanout *so);
struct drm_pending_vblank_event *kmsvt_scanout_arm_event(struct kmsvt_device *kdev,
							 struct drm_pending_vblank_event *e);
struct drm_pending_vblank_event *kmsvt_scanout_latch(struct kmsvt_device *kdev,
						     const ktime_t *vblank);
void kmsvt_scanout_vblank(struct kmsvt_device *kdev, bool running);
void kmsvt_scanout_enable(struct kmsvt_device *kdev, const struct kmsvt_scanout *so);
void kmsvt_scanout_disable(struct kmsvt_device *kdev);
bool kmsvt_scanout_is_on(struct kmsvt_device *kdev);
void kmsvt_scanout_debugfs_init(struct drm_minor *minor);
/* ... and the panic path's: take the screen, look at it, give it back */
void kmsvt_scanout_take(struct kmsvt_device *kdev, bool reserve, const u32 *palette,
			unsigned int colors, struct kmsvt_scanout *so);
bool kmsvt_scanout_peek(struct kmsvt_device *kdev, struct kmsvt_scanout *so);
void kmsvt_scanout_give_back(struct kmsvt_device *kdev);
bool kmsvt_scanout_taken(struct kmsvt_device *kdev);
void kmsvt_scanout_set_banner(struct kmsvt_device *kdev, u32 height);
u32 kmsvt_scanout_banner(struct kmsvt_device *kdev);

/* kms/crtc.c, kms/plane.c, kms/output.c */
int kmsvt_crtc_init(struct kmsvt_device *kdev);
void kmsvt_crtc_master_drop(struct kmsvt_device *kdev);
void kmsvt_crtc_commit_tail(struct kmsvt_atomic_state *state);
int kmsvt_plane_init(struct kmsvt_device *kdev);
void kmsvt_plane_scanout(const struct drm_plane_state *state, struct kmsvt_scanout *so);
int kmsvt_output_init(struct kmsvt_device *kdev);
enum drm_mode_status kmsvt_mode_valid(struct kmsvt_device *kdev,
				      const struct drm_display_mode *mode);

/* gem/layout.c */
void kmsvt_vram_layout(struct kmsvt_device *kdev);

/* gem/gem.c */
int kmsvt_gem_init(struct kmsvt_device *kdev);
int kmsvt_gem_dumb_create(struct drm_file *file, struct drm_device *drm,
			  struct drm_mode_create_dumb *args);
bool kmsvt_gem_is_ours(const struct drm_gem_object *obj);
bool kmsvt_gem_is_console(const struct drm_gem_object *obj);
struct drm_gem_object *kmsvt_gem_prime_import(struct drm_device *drm, struct dma_buf *dma_buf);
s64 kmsvt_gem_vram_offset(struct drm_gem_object *obj);
int kmsvt_gem_pin_console(struct drm_gem_object *obj);
void kmsvt_gem_unpin_console(struct drm_gem_object *obj);
bool kmsvt_gem_mode_fits(struct kmsvt_device *kdev, u64 size);
int kmsvt_gem_check_fb(struct kmsvt_device *kdev, const struct drm_framebuffer *fb,
		       const struct drm_framebuffer *old);
int kmsvt_gem_prepare_fb(struct drm_plane *plane, struct drm_plane_state *state);
void kmsvt_gem_cleanup_fb(struct drm_plane *plane, struct drm_plane_state *state);
void kmsvt_gem_debugfs_init(struct drm_minor *minor);

/* panic/panic.c */
int kmsvt_panic_init(struct kmsvt_device *kdev);
void kmsvt_panic_debugfs_init(struct kmsvt_device *kdev, struct dentry *root);
int kmsvt_debugfs_word(const char __user *ubuf, size_t len, char *buf, size_t size,
		       char **word);

/* panic/pstore.c */
void kmsvt_pstore_init(struct kmsvt_device *kdev);
void kmsvt_pstore_panic(struct kmsvt_device *kdev, const char *reason);

/* panic/test_hooks.c, in the tests' build only (Kbuild: KMSVT_TEST_HOOKS) */
#ifdef KMSVT_TEST_HOOKS
void kmsvt_panic_test_debugfs_init(struct kmsvt_device *kdev, struct dentry *root);
void kmsvt_pstore_test_garbage(struct kmsvt_device *kdev);
#else
static inline void kmsvt_panic_test_debugfs_init(struct kmsvt_device *kdev,
						 struct dentry *root)
{
}
#endif

/* fbdev/fbdev.c */
void kmsvt_fbdev_init(struct kmsvt_device *kdev);
void kmsvt_fbdev_set_suspend(struct kmsvt_device *kdev, bool suspend);
void kmsvt_fbdev_unowned(struct kmsvt_device *kdev);
extern unsigned int kmsvt_fbdev_bpp;

/* fbdev/con.c: the console asks the fbdev emulation for the display through these */
struct fb_info;
struct kmsvt_con_display {
	void (*restore)(struct kmsvt_device *kdev);	/* a VT left graphics mode */
	void (*blank)(struct kmsvt_device *kdev, bool blank);
};

void kmsvt_con_attach(struct kmsvt_device *kdev, struct fb_info *info,
		      const struct kmsvt_con_display *display);
void kmsvt_con_detach(struct kmsvt_device *kdev);
void kmsvt_con_mode_changed(struct kmsvt_device *kdev);
void kmsvt_con_shown(struct kmsvt_device *kdev);
void kmsvt_con_debugfs_init(struct drm_minor *minor);
void kmsvt_con_set_suspend(struct kmsvt_device *kdev, bool suspend);
bool kmsvt_con_text_in_front(void);

#endif /* KMSVT_DRV_H */
