// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's flip group: nonblocking flips with events between two
 * buffers: every event arrives in commit order, sequence and timestamps
 * increase, no event is stamped before its commit, a second commit while
 * one is pending gets -EBUSY, flip rate = refresh rate.  Then the events of
 * commits that turn the plane or the CRTC off, and a blocking commit right
 * after a nonblocking one: it returns only once the first one's event can
 * be read.
 */
#include "kmsvt-test.h"

struct probe {
	int busy, raced, other, last_err;
};

/*
 * One flip to the other buffer, then, while it is pending, a second
 * nonblocking commit, which the atomic helpers refuse with -EBUSY (unless
 * the first already completed).  Then wait for every event.
 */
static int flip_once(struct dev *d, struct flips *f, struct probe *pr)
{
	uint32_t flags = DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	int next = !d->cur, ret;

	ret = flip_sent(d, f, d->scan[next].fb, flags);
	if (ret)
		return ret;
	d->cur = next;
	ret = flip_sent(d, f, d->scan[next].fb, flags);
	if (ret == -EBUSY) {
		pr->busy++;
	} else if (ret == 0) {
		pr->raced++;
	} else {
		pr->other++;
		pr->last_err = ret;
	}
	return wait_events(d->fd, f, f->nsent, 2000);
}

/*
 * Each event's time against the time its commit was asked for: an event
 * must never say a frame was shown before it was asked for.  Events carry
 * their commit's user_data, its index in f->sent plus one.
 */
int flip_check_times(const struct flips *f, const char *name)
{
	int early = 0, first = -1;
	double worst = 0;

	for (int i = 0; i < f->ngot; i++) {
		uint64_t k = f->got[i].data - 1;
		double dt;

		if (k >= (uint64_t)f->nsent)
			continue;
		/* Event times are whole microseconds: truncated, not rounded. */
		dt = f->got[i].ts - f->sent_t[k];
		if (dt < -1e-6) {
			early++;
			if (first < 0)
				first = i;
			if (dt < worst)
				worst = dt;
		}
	}
	return check(f->ngot > 0 && !early, name,
		     "%d of %d events stamped before their commit (first: event %d, worst %.3f ms)",
		     early, f->ngot, first, worst * 1000);
}

static void flip_check_events(const struct dev *d, const struct flips *f)
{
	int order = -1, seq = -1, ts = -1, crtc = -1, gaps = 0;

	check(f->ngot == f->nsent && !f->overflow, "flip_events", "%d events for %d commits",
	      f->ngot, f->nsent);
	for (int i = 0; i < f->ngot; i++) {
		if (order < 0 && (i >= f->nsent || f->got[i].data != f->sent[i]))
			order = i;
		if (crtc < 0 && f->got[i].crtc != d->crtc)
			crtc = i;
		if (i == 0)
			continue;
		if (seq < 0 && (int)(f->got[i].seq - f->got[i - 1].seq) <= 0)
			seq = i;
		if (ts < 0 && f->got[i].ts <= f->got[i - 1].ts)
			ts = i;
		gaps += f->got[i].seq - f->got[i - 1].seq > 1;
	}
	checkq(order < 0, "flip_event_order", "event %d: user_data %llu, committed %llu", order,
	       order < 0 ? 0 : (unsigned long long)f->got[order].data,
	       order < 0 || order >= f->nsent ? 0 : (unsigned long long)f->sent[order]);
	checkq(seq < 0, "flip_sequence_increases", "event %d: sequence %u after %u", seq,
	       seq > 0 ? f->got[seq].seq : 0, seq > 0 ? f->got[seq - 1].seq : 0);
	if (gaps)
		diag("flips: %d of %d went more than one vblank after the previous", gaps, f->ngot);
	checkq(ts < 0, "flip_timestamp_increases", "event %d: %.6f after %.6f", ts,
	       ts > 0 ? f->got[ts].ts : 0, ts > 0 ? f->got[ts - 1].ts : 0);
	checkq(crtc < 0, "flip_event_crtc", "event %d: crtc %u, want %u", crtc,
	       crtc < 0 ? d->crtc : f->got[crtc].crtc, d->crtc);
	flip_check_times(f, "flip_event_not_before_commit");
}

/* Median time between consecutive events: one frame, if no flip misses its vblank. */
static double median_interval(const struct flips *f)
{
	double *dt = calloc(f->ngot, sizeof(*dt)), m;

	if (!dt)
		return 0;
	for (int i = 1; i < f->ngot; i++)
		dt[i - 1] = f->got[i].ts - f->got[i - 1].ts;
	qsort(dt, f->ngot - 1, sizeof(*dt), cmp_double);
	m = dt[(f->ngot - 1) / 2];
	free(dt);
	return m;
}

/*
 * The flip rate (from the median interval, so that a host hiccup does not
 * count) and the vblank counter (which must count vblanks a late timer
 * missed, too) against the mode's refresh rate.
 */
static void flip_check_rate(const struct dev *d, const struct flips *f, double wall)
{
	const struct flip_rec *a = &f->got[0], *b = &f->got[f->ngot > 0 ? f->ngot - 1 : 0];
	double span, rate, counter;

	if (f->ngot < 2 || b->ts <= a->ts) {
		check(0, "flip_rate", "only %d events", f->ngot);
		return;
	}
	span = b->ts - a->ts;
	rate = 1 / median_interval(f);
	counter = (b->seq - a->seq) / span;
	diag("flips: %d events in %.3f s; %.2f Hz by the median interval, %.2f Hz on average",
	     f->ngot, span, rate, (f->ngot - 1) / span);
	diag("flips: %.2f Hz by wall clock; vblank counter %.2f Hz; mode refresh %.3f Hz",
	     f->nsent / wall, counter, d->refresh);
	check(within(rate, d->refresh, d->tol), "flip_rate",
	      "%.2f Hz, mode %.2f Hz (tolerance %.0f%%)", rate, d->refresh, d->tol * 100);
	check(within(counter, d->refresh, d->tol), "flip_vblank_counter_rate",
	      "%u vblanks in %.3f s: %.2f Hz", b->seq - a->seq, span, counter);
}

/* Is an event waiting on the file right now? */
static int event_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/*
 * A nonblocking commit with an event that turns the plane off, then at once
 * a blocking commit that turns it on again: the blocking commit waits for
 * the one before it, event included, so that event is readable when it
 * returns.  Both events of the pair (plane off, CRTC off below) are
 * stamped no earlier than their commits.
 */
static void flip_off_then_blocking(struct dev *d, struct flips *f)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint64_t data = f->nsent + 1;
	int ret, readable;
	double t;

	drmModeAtomicAddProperty(req, d->plane, d->p.fb_id, 0);
	drmModeAtomicAddProperty(req, d->plane, d->p.crtc_id, 0);
	t = now();
	ret = drmModeAtomicCommit(d->fd, req, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT,
				  (void *)(uintptr_t)data);
	drmModeAtomicFree(req);
	if (!ret) {
		f->sent_t[f->nsent] = t;
		f->sent[f->nsent++] = data;
		ret = commit_mode(d, &d->mode, d->scan[d->cur].fb, d->mode.hdisplay,
				  d->mode.vdisplay, 0);
	}
	readable = !ret && event_readable(d->fd);
	check(readable, "flip_blocking_waits_for_previous_event",
	      "%s; the plane-off commit's event %s readable when the blocking commit returned",
	      ret ? err(ret) : "committed", readable ? "was" : "was not");
	ret = wait_events(d->fd, f, f->nsent, 2000);
	check(!ret, "flip_plane_off_event", "%s", err(ret));
}

/* A nonblocking commit with an event that turns the CRTC off, then on again. */
static void flip_crtc_off_event(struct dev *d, struct flips *f)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint64_t data = f->nsent + 1;
	double t;
	int ret;

	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 0);
	t = now();
	ret = drmModeAtomicCommit(d->fd, req, DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT |
				  DRM_MODE_ATOMIC_ALLOW_MODESET, (void *)(uintptr_t)data);
	drmModeAtomicFree(req);
	if (!ret) {
		f->sent_t[f->nsent] = t;
		f->sent[f->nsent++] = data;
		ret = wait_events(d->fd, f, f->nsent, 2000);
	}
	check(!ret, "flip_crtc_off_event", "%s", err(ret));
	d->active = 0;
	ret = need_active(d);
	check(!ret, "flip_crtc_on_again", "%s", err(ret));
}

/*
 * As IGT's flip-vs-expired-vblank: after each flip event, a wait for that
 * event's own vblank, passed by then.  It returns at once with the current
 * count; while that is still the event's, the time must be the event's to
 * the microsecond: an event is stamped with the vblank that latched it.
 * (Under TCG the event is sometimes read a frame late: then the count has
 * moved on and there is nothing to compare.)
 */
static void flip_expired_vblank(struct dev *d)
{
	struct flips *f = calloc(1, sizeof(*f));
	int same = 0, differ = 0, ret = 0, i;
	drmVBlank v;

	if (!f)
		return;
	for (i = 0; i < 60 && !ret; i++) {
		const struct flip_rec *e;

		ret = flip_sent(d, f, d->scan[!d->cur].fb,
				DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT);
		if (ret)
			break;
		d->cur = !d->cur;
		ret = wait_events(d->fd, f, f->nsent, 2000);
		e = &f->got[f->ngot - 1];
		ret = ret ? ret : wait_vbl_type(d, DRM_VBLANK_ABSOLUTE, e->seq, &v);
		if (ret || v.reply.sequence != e->seq)
			continue;
		if ((long long)v.reply.tval_sec * 1000000 + v.reply.tval_usec ==
		    (long long)(e->ts * 1e6 + 0.5))
			same++;
		else
			differ++;
	}
	diag("expired vblank waits: %d in the event's frame, %d a frame or more later", same + differ,
	     i - same - differ);
	check(!ret && same > 0 && !differ, "flip_event_time_is_its_vblank",
	      "%s; %d waits gave the event's time, %d another", err(ret), same, differ);
	flip_check_times(f, "flip_expired_not_before_commit");
	free(f);
}

/*
 * Framebuffers twice the mode's width, for panning: one alone is shown;
 * a flip between two either works, or, when VRAM cannot hold both next to
 * the console's buffer, is refused at check (TEST_ONLY gives the same
 * answer as the commit) with -ENOSPC, never with -ENOMEM from the commit.
 */
static void flip_wide_fbs(struct dev *d)
{
	uint32_t w = 2 * d->mode.hdisplay, h = d->mode.vdisplay;
	uint32_t flags = DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	struct flips *f = calloc(1, sizeof(*f));
	struct buf wide[2];
	int ret, test, flip;

	ret = f ? buf_create(d->fd, w, h, &wide[0]) : -ENOMEM;
	ret = ret ? ret : buf_create(d->fd, w, h, &wide[1]);
	ret = ret ? ret : commit_mode(d, &d->mode, wide[0].fb, d->mode.hdisplay, h, 0);
	d->active = 0;
	if (check(!ret, "flip_wide_fb_shown", "%ux%u: %s", w, h, err(ret))) {
		test = commit_flip(d, wide[1].fb, DRM_MODE_ATOMIC_TEST_ONLY, 0);
		flip = flip_sent(d, f, wide[1].fb, flags);
		if (!flip)
			flip = wait_events(d->fd, f, f->nsent, 2000);
		check(test == flip && (!flip || flip == -ENOSPC), "flip_wide_fbs_work_or_refused_at_check",
		      "TEST_ONLY %s, flip %s", err(test), err(flip));
	}
	need_active(d);
	buf_destroy(d->fd, &wide[0]);
	buf_destroy(d->fd, &wide[1]);
	free(f);
}

static void flip_off_events(struct dev *d)
{
	struct flips *f = calloc(1, sizeof(*f));

	if (!f || active_or_fail(d, "flip_off_setup")) {
		free(f);
		return;
	}
	for (int i = 0; i < 5; i++)
		flip_off_then_blocking(d, f);
	flip_crtc_off_event(d, f);
	flip_check_times(f, "flip_off_events_not_before_commit");
	free(f);
}

void group_flip(struct dev *d)
{
	struct flips *f = calloc(1, sizeof(*f));
	struct probe pr = { 0 };
	int ret = 0, i;
	double t0;

	if (!f || active_or_fail(d, "flip_setup")) {
		free(f);
		return;
	}
	t0 = now();
	for (i = 0; i < d->flips && !ret; i++)
		ret = flip_once(d, f, &pr);
	check(!ret, "flip_commits", "%d flips%s%s", i, ret ? ", failed: " : "",
	      ret ? err(ret) : "");
	check(!pr.other && pr.busy > 0, "flip_second_commit_ebusy",
	      "%d -EBUSY, %d accepted (first flip already done), %d other (last %s)",
	      pr.busy, pr.raced, pr.other, err(pr.last_err));
	flip_check_events(d, f);
	flip_check_rate(d, f, now() - t0);
	check(crtc_fb(d, NULL) == d->scan[d->cur].fb, "flip_final_fb",
	      "crtc shows fb %u, last flip %u", crtc_fb(d, NULL), d->scan[d->cur].fb);
	free(f);
	flip_off_events(d);
	flip_expired_vblank(d);
	flip_wide_fbs(d);
}
