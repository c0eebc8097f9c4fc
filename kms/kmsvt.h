/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmsvt: DRM/KMS driver for QEMU's Bochs/std-VGA display.
 *
 * One device structure owns everything: the two PCI BARs, the buffer
 * limits (buffers themselves are TTM objects, see gem/), and one CRTC ->
 * primary plane -> encoder -> connector chain.
 */
#ifndef KMSVT_H
#define KMSVT_H

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

#define KMSVT_NAME "kmsvt"

/* DISPI register file in the MMIO BAR (QEMU hw/display/vga-pci.c). */
#define DISPI_ID		0x0
#define DISPI_XRES		0x1
#define DISPI_YRES		0x2
#define DISPI_BPP		0x3
#define DISPI_ENABLE		0x4
#define DISPI_BANK		0x5
#define DISPI_VIRT_WIDTH	0x6
#define DISPI_VIRT_HEIGHT	0x7
#define DISPI_X_OFFSET		0x8
#define DISPI_Y_OFFSET		0x9
#define DISPI_VIDEO_MEMORY_64K	0xa

#define DISPI_ID0		0xb0c0
#define DISPI_ID5		0xb0c5
#define DISPI_ENABLED		0x01
#define DISPI_LFB_ENABLED	0x40
#define DISPI_NOCLEARMEM	0x80

/* QEMU clamps XRES/YRES to these and rounds widths down to 8 pixels. */
#define DISPI_MAX_XRES		16000
#define DISPI_MAX_YRES		12000
#define DISPI_MIN_RES		64

/* What the scanout registers currently point at. */
struct kmsvt_scanout {
	u32 width;		/* visible pixels */
	u32 height;
	u32 format;		/* DRM fourcc */
	u32 pitch;		/* bytes per line */
	u32 cpp;		/* bytes per pixel */
	u32 bpp;		/* DISPI BPP value (15, 16, 32) */
	u64 offset;		/* VRAM offset of the first visible pixel */
	bool blank;		/* CRTC on, plane off: show black */
};

struct kmsvt_device {
	struct drm_device drm;

	/* hardware */
	void __iomem *mmio;
	void __iomem *vram;		/* whole BAR 0, write-combined */
	resource_size_t vram_base;
	resource_size_t vram_size;
	u16 dispi_id;
	u32 qext_size;			/* QEMU extended registers, 0 if none */
	const struct drm_edid *edid;

	/* buffer objects (gem/) */
	u64 gem_limit;			/* all buffers together, in bytes */
	u64 console_size;		/* VRAM the console's buffer keeps */
	const struct drm_gem_object *console_obj;	/* that buffer */
	struct kmsvt_fbdev *fbdev;	/* the console, once registered */

	/* display pipeline (kms/) */
	struct drm_plane primary;
	struct drm_crtc crtc;
	struct drm_encoder encoder;
	struct drm_connector connector;

	/* emulated vblank: applies pending scanout at each period */
	struct hrtimer vblank_timer;
	ktime_t frame_period;
	/* Raw: the panic path trylocks it with interrupts off. */
	raw_spinlock_t scanout_lock;	/* protects scanout, pending, flags */
	struct kmsvt_scanout scanout;
	struct kmsvt_scanout pending;
	ktime_t queued_at;		/* when pending or flip_event came */
	bool pending_valid;
	/*
	 * The event of the commit whose scanout is pending: the timer sends it
	 * right after latching that scanout.  Holds a vblank reference.
	 */
	struct drm_pending_vblank_event *flip_event;
	bool vblank_running;
	bool scanout_on;		/* the CRTC is enabled */
	bool panicked;			/* the panic screen owns DISPI */
	struct kmsvt_stats {		/* debugfs kmsvt_stats */
		u64 modesets;		/* CRTC enables: DISPI mode programmed */
		u64 plane_updates;	/* new scanouts queued without a modeset */
		u64 latched;		/* of those, applied to DISPI */
		u64 mode_reloads;	/* latched with DISPI's mode registers */
		u64 blanks;		/* picture to black: plane or CRTC off */
	} stats;			/* protected by scanout_lock */
	u32 banner_height;		/* oops banner rows the console keeps off */

	/* panic/ */
	struct kmsvt_scanout panic_reserve;	/* buffer at the start of VRAM */
	resource_size_t gem_start;		/* GEM's VRAM: from here to the end */
	struct kmsvt_panic *panic;

};

static inline struct kmsvt_device *to_kmsvt(struct drm_device *drm)
{
	return container_of(drm, struct kmsvt_device, drm);
}

/* kms/hw.c */
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

/* kms/crtc.c, kms/plane.c, kms/output.c */
int kmsvt_crtc_init(struct kmsvt_device *kdev);
void kmsvt_crtc_debugfs_init(struct drm_minor *minor);
void kmsvt_queue_scanout(struct kmsvt_device *kdev, const struct kmsvt_scanout *so);
void kmsvt_queue_blank(struct kmsvt_device *kdev);
void kmsvt_crtc_master_drop(struct kmsvt_device *kdev);
extern const struct drm_mode_config_helper_funcs kmsvt_mode_config_helpers;
int kmsvt_plane_init(struct kmsvt_device *kdev);
void kmsvt_plane_scanout(const struct drm_plane_state *state, struct kmsvt_scanout *so);
void kmsvt_blank_scanout(const struct drm_display_mode *mode, struct kmsvt_scanout *so);
int kmsvt_output_init(struct kmsvt_device *kdev);
enum drm_mode_status kmsvt_mode_valid(struct kmsvt_device *kdev,
				      const struct drm_display_mode *mode);

/* gem/gem.c */
int kmsvt_gem_init(struct kmsvt_device *kdev);
int kmsvt_gem_dumb_create(struct drm_file *file, struct drm_device *drm,
			  struct drm_mode_create_dumb *args);
bool kmsvt_gem_is_ours(const struct drm_gem_object *obj);
struct drm_gem_object *kmsvt_gem_prime_import(struct drm_device *drm, struct dma_buf *dma_buf);
s64 kmsvt_gem_vram_offset(struct drm_gem_object *obj);
int kmsvt_gem_pin_console(struct drm_gem_object *obj);
void kmsvt_gem_unpin_console(struct drm_gem_object *obj);
int kmsvt_gem_check_fb(struct kmsvt_device *kdev, const struct drm_framebuffer *fb,
		       const struct drm_framebuffer *old);
int kmsvt_gem_prepare_fb(struct drm_plane *plane, struct drm_plane_state *state);
void kmsvt_gem_cleanup_fb(struct drm_plane *plane, struct drm_plane_state *state);
void kmsvt_gem_debugfs_init(struct drm_minor *minor);

/* panic/panic.c */
int kmsvt_panic_init(struct kmsvt_device *kdev);
bool kmsvt_panic_active(struct kmsvt_device *kdev);
u32 kmsvt_panic_banner_height(struct kmsvt_device *kdev);
void kmsvt_panic_banner_clear(struct kmsvt_device *kdev);
void kmsvt_panic_reserve(struct kmsvt_device *kdev);
void kmsvt_panic_debugfs_init(struct kmsvt_device *kdev, struct dentry *root);
void kmsvt_panic_test_debugfs_init(struct kmsvt_device *kdev, struct dentry *root);
int kmsvt_debugfs_word(const char __user *ubuf, size_t len, char *buf, size_t size,
		       char **word);

/* fbdev/fbdev.c */
void kmsvt_fbdev_init(struct kmsvt_device *kdev);
void kmsvt_fbdev_set_suspend(struct kmsvt_device *kdev, bool suspend);
void kmsvt_fbdev_restore_display(struct kmsvt_device *kdev);
void kmsvt_fbdev_unowned(struct kmsvt_device *kdev);
void kmsvt_fbdev_blank(struct kmsvt_device *kdev, bool blank);
extern unsigned int kmsvt_fbdev_bpp;

/* fbdev/con.c */
struct dma_buf;
struct fb_info;
void kmsvt_con_attach(struct kmsvt_device *kdev, struct fb_info *info);
void kmsvt_con_detach(struct kmsvt_device *kdev);
void kmsvt_con_mode_changed(struct kmsvt_device *kdev);
void kmsvt_con_set_suspend(struct kmsvt_device *kdev, bool suspend);
bool kmsvt_con_text_in_front(void);

#endif /* KMSVT_H */
