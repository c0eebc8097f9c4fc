// SPDX-License-Identifier: GPL-2.0
/*
 * The scanout queue: what DISPI shows, what it shows next, and the flip
 * event waiting for that.
 *
 * The plane queues a new scanout; the CRTC's vblank timer latches it into
 * DISPI (kms/crtc.c), right before it signals the vblank and sends the
 * flip's event, so an event never precedes its flip.  With no vblank
 * running nobody waits for one, and a scanout latches at once.
 *
 * The panic path takes the screen through kmsvt_scanout_take(): from then
 * on nothing here writes DISPI, and the panic screen draws into what was
 * on screen (or into the panic buffer when that cannot be read).  It runs
 * with other CPUs stopped, so it only trylocks scanout_lock.
 */
#include <linux/seq_file.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_fourcc.h>
#include <drm/drm_print.h>

#include "kmsvt_drv.h"

void kmsvt_scanout_init(struct kmsvt_device *kdev)
{
	raw_spin_lock_init(&kdev->scanout_lock);
}

/*
 * Caller holds scanout_lock.  After a panic the panic screen stays.  Only a
 * new depth needs DISPI's mode registers; anything else moves the scanout
 * offsets, and black to a picture also opens the attribute controller.
 */
static void kmsvt_apply_pending(struct kmsvt_device *kdev)
{
	const struct kmsvt_scanout *so = &kdev->pending;

	if (!kdev->pending_valid || kdev->taken)
		return;
	if (so->blank && !kdev->scanout.blank)
		kdev->stats.blanks++;
	if (so->bpp != kdev->scanout.bpp) {
		kmsvt_hw_set_mode(kdev, so);
		kdev->stats.mode_reloads++;
	} else {
		kmsvt_hw_set_base(kdev, so);
		if (kdev->scanout.blank && !so->blank)
			kmsvt_hw_blank(kdev, false);
	}
	kdev->stats.latched++;
	kdev->scanout = *so;
	kdev->pending_valid = false;
}

/*
 * Latch @so at the next vblank, or now when no vblank is running (nobody
 * waits for one, so there is nothing to tear against).
 */
void kmsvt_scanout_queue(struct kmsvt_device *kdev, const struct kmsvt_scanout *so)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	kdev->pending = *so;
	kdev->queued_at = ktime_get();
	kdev->pending_valid = true;
	kdev->stats.plane_updates++;
	if (!kdev->vblank_running)
		kmsvt_apply_pending(kdev);
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
}

/* The primary plane went off with the CRTC on: black, in the same mode. */
void kmsvt_scanout_queue_blank(struct kmsvt_device *kdev)
{
	struct kmsvt_scanout so;
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	so = kdev->pending_valid ? kdev->pending : kdev->scanout;
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
	so.blank = true;
	kmsvt_scanout_queue(kdev, &so);
}

/*
 * CRTC on, primary plane off: the mode runs and the attribute controller
 * blanks it.  The geometry is the mode's, at the start of VRAM, so that the
 * registers hold a valid mode; nothing is read from there while blanked.
 */
void kmsvt_scanout_blank_mode(const struct drm_display_mode *mode, struct kmsvt_scanout *so)
{
	*so = (struct kmsvt_scanout){
		.width = mode->hdisplay, .height = mode->vdisplay,
		.format = DRM_FORMAT_XRGB8888, .pitch = mode->hdisplay * 4,
		.cpp = 4, .bpp = 32, .offset = 0, .blank = true,
	};
}

/*
 * @e waits for the pending scanout (or, with none, for the next vblank).
 * Returns an event that was waiting already, which the caller completes.
 */
struct drm_pending_vblank_event *kmsvt_scanout_arm_event(struct kmsvt_device *kdev,
							 struct drm_pending_vblank_event *e)
{
	struct drm_pending_vblank_event *stale;
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	stale = kdev->flip_event;
	kdev->flip_event = e;
	/* A commit that queued no scanout: its event still waits a vblank. */
	if (!kdev->pending_valid)
		kdev->queued_at = ktime_get();
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
	return stale;
}

/*
 * Latch the pending scanout and hand back the flip event that waited for
 * it (the caller sends it).  At a vblank (@vblank: its time), only what
 * was queued by then: the timer runs late when the host is busy (under
 * TCG by several milliseconds), and a flip queued between the vblank's
 * time and now must not latch at it, or its event would say, with this
 * vblank's number and time, that it was shown before it was asked for.
 * It latches at the next vblank, as on hardware.  With @vblank NULL: now.
 */
struct drm_pending_vblank_event *kmsvt_scanout_latch(struct kmsvt_device *kdev,
						     const ktime_t *vblank)
{
	struct drm_pending_vblank_event *event = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	if (!vblank || !ktime_after(kdev->queued_at, *vblank)) {
		kmsvt_apply_pending(kdev);
		event = kdev->flip_event;
		kdev->flip_event = NULL;
	}
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
	return event;
}

/* vblank starts or stops; when it stops, a late flip latches at once. */
void kmsvt_scanout_vblank(struct kmsvt_device *kdev, bool running)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	kdev->vblank_running = running;
	if (!running)
		kmsvt_apply_pending(kdev);
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
}

/* A modeset: program the whole mode with @so.  A new picture drops a banner. */
void kmsvt_scanout_enable(struct kmsvt_device *kdev, const struct kmsvt_scanout *so)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	if (!kdev->taken)
		kmsvt_hw_set_mode(kdev, so);
	kdev->scanout = *so;
	kdev->scanout_on = true;
	kdev->pending_valid = false;
	kdev->banner_height = 0;
	kdev->stats.modesets++;
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
}

void kmsvt_scanout_disable(struct kmsvt_device *kdev)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	kdev->scanout_on = false;
	kdev->stats.blanks++;
	if (!kdev->taken)
		kmsvt_hw_disable(kdev);
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
}

bool kmsvt_scanout_is_on(struct kmsvt_device *kdev)
{
	return READ_ONCE(kdev->scanout_on);
}

/* kmsvt_scanout_snapshot() with interrupts off. */
static bool kmsvt_scanout_copy(struct kmsvt_device *kdev, struct kmsvt_scanout *so,
			       bool stop_flips)
{
	bool on;

	if (!raw_spin_trylock(&kdev->scanout_lock))
		return false;
	if (stop_flips)
		kdev->pending_valid = false;
	*so = kdev->scanout;
	on = kdev->scanout_on && !so->blank;
	raw_spin_unlock(&kdev->scanout_lock);
	return on;
}

/*
 * Copy the scanout state if its lock is free, and say whether it is being
 * shown; with @stop_flips also drop a flip that has not latched yet.
 */
static bool kmsvt_scanout_snapshot(struct kmsvt_device *kdev, struct kmsvt_scanout *so,
				   bool stop_flips)
{
	unsigned long flags;
	bool on;

	local_irq_save(flags);
	on = kmsvt_scanout_copy(kdev, so, stop_flips);
	local_irq_restore(flags);
	return on;
}

/*
 * The panic path's one call: take the screen, stop flips and vblank from
 * touching DISPI, and describe in @so what is shown.  With @reserve, or
 * when the scanout state cannot be read (its lock is held, the CRTC is
 * off), that is the panic buffer of the VRAM layout, shown in its mode
 * with @palette.
 */
void kmsvt_scanout_take(struct kmsvt_device *kdev, bool reserve, const u32 *palette,
			unsigned int colors, struct kmsvt_scanout *so)
{
	WRITE_ONCE(kdev->taken, true);
	if (!kmsvt_scanout_snapshot(kdev, so, true) || reserve) {
		*so = kdev->layout.panic;
		kmsvt_hw_set_mode(kdev, so);
		kmsvt_hw_set_palette(kdev, palette, colors);
	}
	/* Point DISPI at it again, in case a flip was half way. */
	kmsvt_hw_set_base(kdev, so);
}

/* What is on screen, if it can be read and is shown; the screen stays KMS's. */
bool kmsvt_scanout_peek(struct kmsvt_device *kdev, struct kmsvt_scanout *so)
{
	return kmsvt_scanout_snapshot(kdev, so, false);
}

/* The display back to KMS after a panic screen's preview; the banner goes. */
void kmsvt_scanout_give_back(struct kmsvt_device *kdev)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	kdev->taken = false;
	kdev->banner_height = 0;
	if (kdev->scanout_on)
		kmsvt_hw_set_mode(kdev, &kdev->scanout);
	else
		kmsvt_hw_disable(kdev);
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
}

bool kmsvt_scanout_taken(struct kmsvt_device *kdev)
{
	return READ_ONCE(kdev->taken);
}

/* Rows at the top that an oops banner covers, until the next modeset. */
void kmsvt_scanout_set_banner(struct kmsvt_device *kdev, u32 height)
{
	WRITE_ONCE(kdev->banner_height, height);
}

u32 kmsvt_scanout_banner(struct kmsvt_device *kdev)
{
	return READ_ONCE(kdev->banner_height);
}

/*
 * debugfs kmsvt_stats: how the display was changed, so that a user (or a
 * test) can tell a switch that was a plane update from a full modeset.
 */
static int kmsvt_stats_show(struct seq_file *m, void *data)
{
	struct drm_info_node *node = m->private;
	struct kmsvt_device *kdev = to_kmsvt(node->minor->dev);
	struct kmsvt_stats st;
	unsigned long flags;

	raw_spin_lock_irqsave(&kdev->scanout_lock, flags);
	st = kdev->stats;
	raw_spin_unlock_irqrestore(&kdev->scanout_lock, flags);
	seq_printf(m, "modesets: %llu\nplane_updates: %llu\nlatched: %llu\nmode_reloads: %llu\n",
		   st.modesets, st.plane_updates, st.latched, st.mode_reloads);
	seq_printf(m, "blanks: %llu\n", st.blanks);
	return 0;
}

static const struct drm_info_list kmsvt_scanout_debugfs_list[] = {
	{ "kmsvt_stats", kmsvt_stats_show, 0 },
};

void kmsvt_scanout_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(kmsvt_scanout_debugfs_list,
				 ARRAY_SIZE(kmsvt_scanout_debugfs_list),
				 minor->debugfs_root, minor);
}
