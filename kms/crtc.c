// SPDX-License-Identifier: GPL-2.0
/*
 * The CRTC and its emulated vblank.
 *
 * The Bochs display has no interrupt, so vblank is an hrtimer running at
 * the mode's refresh rate.  Page flips are latched by that timer: the plane
 * queues the new scanout (kms/scanout.c) and the timer latches it right
 * before it signals the vblank and sends the flip's event, so an event
 * never precedes its flip.
 *
 * The flip event is kept here rather than armed in the vblank core, so that
 * a master that leaves (a user switch) can have its last flip latched and
 * completed at once: the next master's first flip is then taken without
 * EBUSY and shown at the next vblank, one frame after the switch, not two.
 */
#include <drm/drm_atomic.h>
#include <drm/drm_atomic_helper.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_vblank.h>

#include "kmsvt_drv.h"

/*
 * Complete @e outside a vblank, for a change that took effect just now (a
 * scanout latched early, a CRTC turned off).  drm_crtc_send_vblank_event()
 * would stamp it with the last vblank's time, which can be earlier than the
 * commit that asked for the change; clients time their frames from these
 * stamps.  So stamp it with the time it took effect, and the number of the
 * frame that is running.  Caller holds the event lock.
 */
static void kmsvt_send_event_now(struct drm_crtc *crtc, struct drm_pending_vblank_event *e)
{
	ktime_t now = ktime_get();
	u64 seq = drm_crtc_vblank_count(crtc);
	struct timespec64 tv = ktime_to_timespec64(now);

	e->pipe = drm_crtc_index(crtc);
	switch (e->event.base.type) {
	case DRM_EVENT_VBLANK:
	case DRM_EVENT_FLIP_COMPLETE:
		e->event.vbl.sequence = seq;
		e->event.vbl.tv_sec = tv.tv_sec;
		e->event.vbl.tv_usec = tv.tv_nsec / NSEC_PER_USEC;
		break;
	case DRM_EVENT_CRTC_SEQUENCE:
		e->event.seq.sequence = seq;
		e->event.seq.time_ns = ktime_to_ns(now);
		break;
	}
	drm_send_event_timestamp_locked(crtc->dev, &e->base, now);
}

/*
 * Send a flip's event, stamped with the vblank that latched it or, for a
 * scanout latched early (@now), with the time it latched; drop the vblank
 * reference the event held.
 */
static void kmsvt_send_flip_event(struct kmsvt_device *kdev,
				  struct drm_pending_vblank_event *event, bool now)
{
	unsigned long flags;

	spin_lock_irqsave(&kdev->drm.event_lock, flags);
	if (now)
		kmsvt_send_event_now(&kdev->crtc, event);
	else
		drm_crtc_send_vblank_event(&kdev->crtc, event);
	spin_unlock_irqrestore(&kdev->drm.event_lock, flags);
	drm_crtc_vblank_put(&kdev->crtc);
}

/* Latch the pending scanout now and complete its flip (if any). */
static void kmsvt_flush_flip(struct kmsvt_device *kdev)
{
	struct drm_pending_vblank_event *event = kmsvt_scanout_latch(kdev, NULL);

	if (event)
		kmsvt_send_flip_event(kdev, event, true);
}

/*
 * A DRM master dropped its role (a seat daemon or X on a VT switch) or
 * left.  Its last flip may still wait for the next vblank, and until it
 * completes the next master's flip (or the console's restore) is refused
 * with EBUSY or waits, then waits a vblank more.  Latching it now shows
 * that frame of the outgoing session up to a frame early, and the next
 * owner's first frame can latch at the next vblank.
 */
void kmsvt_crtc_master_drop(struct kmsvt_device *kdev)
{
	kmsvt_flush_flip(kdev);
}

static enum hrtimer_restart kmsvt_vblank_fire(struct hrtimer *timer)
{
	struct kmsvt_device *kdev = container_of(timer, struct kmsvt_device, vblank_timer);
	struct drm_pending_vblank_event *event;
	ktime_t vblank;
	bool running;

	/*
	 * Forward first, skipping periods a late run missed: the vblank
	 * timestamp is the expiry before the new one, and the core counts
	 * missed vblanks from the timestamps.
	 */
	hrtimer_forward_now(timer, kdev->frame_period);
	vblank = ktime_sub(hrtimer_get_expires(timer), kdev->frame_period);
	event = kmsvt_scanout_latch(kdev, &vblank);

	/* Count this vblank first: the event carries its number and time. */
	running = drm_crtc_handle_vblank(&kdev->crtc);
	if (event)
		kmsvt_send_flip_event(kdev, event, false);
	if (running)
		return HRTIMER_RESTART;

	/* vblank was switched off meanwhile: stop, and flush a late flip. */
	kmsvt_scanout_vblank(kdev, false);
	return HRTIMER_NORESTART;
}

static int kmsvt_enable_vblank(struct drm_crtc *crtc)
{
	struct kmsvt_device *kdev = to_kmsvt(crtc->dev);

	kmsvt_scanout_vblank(kdev, true);
	hrtimer_start(&kdev->vblank_timer, kdev->frame_period, HRTIMER_MODE_REL);
	return 0;
}

/*
 * Called with the vblank spinlocks held, which the timer callback takes in
 * drm_crtc_handle_vblank(): only try to cancel; a running callback sees
 * vblank disabled and stops by itself.
 */
static void kmsvt_disable_vblank(struct drm_crtc *crtc)
{
	struct kmsvt_device *kdev = to_kmsvt(crtc->dev);

	hrtimer_try_to_cancel(&kdev->vblank_timer);
	kmsvt_scanout_vblank(kdev, false);
}

/* The latest vblank: one period before the timer's next expiry. */
static bool kmsvt_get_vblank_timestamp(struct drm_crtc *crtc, int *max_error,
				       ktime_t *vblank_time, bool in_vblank_irq)
{
	struct kmsvt_device *kdev = to_kmsvt(crtc->dev);

	if (!READ_ONCE(kdev->vblank_running)) {
		*vblank_time = ktime_get();
		return true;
	}
	*vblank_time = ktime_sub(hrtimer_get_expires(&kdev->vblank_timer), kdev->frame_period);
	return true;
}

static const struct drm_crtc_funcs kmsvt_crtc_funcs = {
	.reset = drm_atomic_helper_crtc_reset,
	.destroy = drm_crtc_cleanup,
	.set_config = drm_atomic_helper_set_config,
	.page_flip = drm_atomic_helper_page_flip,
	.atomic_duplicate_state = drm_atomic_helper_crtc_duplicate_state,
	.atomic_destroy_state = drm_atomic_helper_crtc_destroy_state,
	.enable_vblank = kmsvt_enable_vblank,
	.disable_vblank = kmsvt_disable_vblank,
	.get_vblank_timestamp = kmsvt_get_vblank_timestamp,
};

static enum drm_mode_status kmsvt_crtc_mode_valid(struct drm_crtc *crtc,
						  const struct drm_display_mode *mode)
{
	return kmsvt_mode_valid(to_kmsvt(crtc->dev), mode);
}

/*
 * A mode from userspace comes with its CRTC timings, one an in-kernel
 * client made up (drm_cvt_mode()) may not: without them the vblank core
 * has no frame duration and the frame period below would divide by zero.
 */
static bool kmsvt_crtc_mode_fixup(struct drm_crtc *crtc, const struct drm_display_mode *mode,
				  struct drm_display_mode *adjusted_mode)
{
	drm_mode_set_crtcinfo(adjusted_mode, CRTC_INTERLACE_HALVE_V);
	return adjusted_mode->crtc_clock > 0 && adjusted_mode->crtc_htotal &&
	       adjusted_mode->crtc_vtotal;
}

static void kmsvt_crtc_atomic_enable(struct drm_crtc *crtc, struct kmsvt_atomic_state *state)
{
	struct kmsvt_device *kdev = to_kmsvt(crtc->dev);
	struct drm_display_mode *mode = &crtc->state->adjusted_mode;
	struct drm_plane_state *pstate = drm_atomic_get_new_plane_state(state, crtc->primary);
	struct kmsvt_scanout so;

	if (!pstate)
		pstate = crtc->primary->state;
	if (pstate->fb && pstate->visible)
		kmsvt_plane_scanout(pstate, &so);
	else
		kmsvt_scanout_blank_mode(mode, &so);

	kdev->frame_period = ns_to_ktime(div_u64((u64)mode->crtc_htotal * mode->crtc_vtotal *
						 1000000ULL, mode->crtc_clock));
	kmsvt_scanout_enable(kdev, &so);
	drm_crtc_vblank_on(crtc);
}

static void kmsvt_crtc_atomic_disable(struct drm_crtc *crtc, struct kmsvt_atomic_state *state)
{
	struct kmsvt_device *kdev = to_kmsvt(crtc->dev);

	drm_crtc_vblank_off(crtc);
	/* The timer is stopped: complete a flip it would have latched. */
	kmsvt_flush_flip(kdev);
	kmsvt_scanout_disable(kdev);

	/* Nothing will signal vblank any more: complete a pending event now. */
	spin_lock_irq(&crtc->dev->event_lock);
	if (crtc->state->event) {
		kmsvt_send_event_now(crtc, crtc->state->event);
		crtc->state->event = NULL;
	}
	spin_unlock_irq(&crtc->dev->event_lock);
}

/*
 * The commit's scanout is queued (plane update) or programmed (enable);
 * its event goes out when the timer has latched it.  Only one commit is in
 * flight at a time (the core refuses or waits for a second one until this
 * event is sent), so there is no earlier event here to replace.
 */
static void kmsvt_crtc_atomic_flush(struct drm_crtc *crtc, struct kmsvt_atomic_state *state)
{
	struct kmsvt_device *kdev = to_kmsvt(crtc->dev);
	struct drm_pending_vblank_event *event = crtc->state->event, *stale;
	unsigned long flags;

	if (!event)
		return;
	crtc->state->event = NULL;

	if (!crtc->state->active || drm_crtc_vblank_get(crtc)) {
		spin_lock_irqsave(&crtc->dev->event_lock, flags);
		kmsvt_send_event_now(crtc, event);
		spin_unlock_irqrestore(&crtc->dev->event_lock, flags);
		return;
	}
	stale = kmsvt_scanout_arm_event(kdev, event);
	if (WARN_ON_ONCE(stale))
		kmsvt_send_flip_event(kdev, stale, true);
	/*
	 * The primary plane went off (a master's framebuffer removed as it
	 * closes, or turned off): black needs no vblank to look right.  Done
	 * at once, the console's restore that follows a close latches at the
	 * next vblank rather than one later.
	 */
	if (!crtc->primary->state->visible)
		kmsvt_flush_flip(kdev);
}

/*
 * The helper's default tail waits for the next vblank before it unpins the
 * buffers the commit replaced.  Every commit here has an event, sent when
 * its scanout latched, so wait for that instead: a flip that master_drop
 * completed early then unpins its old buffer at once.  That keeps cleanups
 * in commit order, and TTM's LRU with them: the buffer that left the screen
 * last is evicted last, so the front buffer of a session that was switched
 * away from is still in VRAM when it comes back.
 */
void kmsvt_crtc_commit_tail(struct kmsvt_atomic_state *state)
{
	struct drm_device *drm = state->dev;

	drm_atomic_helper_commit_modeset_disables(drm, state);
	drm_atomic_helper_commit_planes(drm, state, 0);
	drm_atomic_helper_commit_modeset_enables(drm, state);
	drm_atomic_helper_fake_vblank(state);
	drm_atomic_helper_commit_hw_done(state);
	drm_atomic_helper_wait_for_flip_done(drm, state);
	drm_atomic_helper_cleanup_planes(drm, state);
}

static const struct drm_crtc_helper_funcs kmsvt_crtc_helper_funcs = {
	.mode_valid = kmsvt_crtc_mode_valid,
	.mode_fixup = kmsvt_crtc_mode_fixup,
	.atomic_enable = kmsvt_crtc_atomic_enable,
	.atomic_disable = kmsvt_crtc_atomic_disable,
	.atomic_flush = kmsvt_crtc_atomic_flush,
};

/* The timer must be dead before the device memory goes away. */
static void kmsvt_crtc_release(struct drm_device *drm, void *data)
{
	hrtimer_cancel(&to_kmsvt(drm)->vblank_timer);
}

int kmsvt_crtc_init(struct kmsvt_device *kdev)
{
	int ret;

	kmsvt_scanout_init(kdev);
	kmsvt_hrtimer_setup(&kdev->vblank_timer, kmsvt_vblank_fire, CLOCK_MONOTONIC,
			    HRTIMER_MODE_REL);
	kdev->frame_period = ns_to_ktime(NSEC_PER_SEC / 60);
	/* Added only once the timer exists: a probe that fails before has none. */
	ret = drmm_add_action(&kdev->drm, kmsvt_crtc_release, NULL);
	if (ret)
		return ret;

	ret = drm_crtc_init_with_planes(&kdev->drm, &kdev->crtc, &kdev->primary, NULL,
					&kmsvt_crtc_funcs, NULL);
	if (ret)
		return ret;
	drm_crtc_helper_add(&kdev->crtc, &kmsvt_crtc_helper_funcs);
	return 0;
}
