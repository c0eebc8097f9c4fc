// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's flip group: nonblocking flips with events between two
 * buffers: every event arrives in commit order, sequence and timestamps
 * increase, a second commit while one is pending gets -EBUSY, flip rate =
 * refresh rate.
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
	uint64_t data = f->nsent + 1;

	ret = commit_flip(d, d->scan[next].fb, flags, data);
	if (ret)
		return ret;
	f->sent[f->nsent++] = data;
	d->cur = next;
	ret = commit_flip(d, d->scan[next].fb, flags, data + 1);
	if (ret == -EBUSY) {
		pr->busy++;
	} else if (ret == 0) {
		f->sent[f->nsent++] = data + 1;
		pr->raced++;
	} else {
		pr->other++;
		pr->last_err = ret;
	}
	return wait_events(d->fd, f, f->nsent, 2000);
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
}
