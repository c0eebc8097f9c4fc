// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test's turns group: 4 clients, each with 2 buffers at the preferred
 * mode, allocated at once, take turns as master: modeset, 60 vsynced flips.
 */
#include "kmsvt-test.h"

#define TURNS 4
#define TURN_FLIPS 60
#define TURN_GAPS 2		/* vblanks a late client may miss in a turn */

/* Client i's colour: one per client, easy to tell apart on screen. */
static const uint32_t turn_colors[TURNS] = { 0x00c02020, 0x0020c020, 0x002020c0, 0x00c0c020 };

/*
 * One client's turn: master, its mode with buffer A, 60 vsynced flips
 * between B and A (ending on A), then the screen is looked at, and master
 * is dropped for the next one.  Returns the number of failed checks.
 */
static int turn_run(struct dev *c, int i)
{
	static struct flips f;
	char name[32];
	double t0, wall, span;
	int ret, bad = 0;

	memset(&f, 0, sizeof(f));
	ret = drmSetMaster(c->fd) ? -errno : 0;
	ret = ret ? ret : commit_mode(c, &c->mode, c->scan[0].fb, c->mode.hdisplay,
				     c->mode.vdisplay, 0);
	snprintf(name, sizeof(name), "turns_%d_modeset", i);
	bad += !check(!ret, name, "%s", err(ret));
	c->cur = 0;
	t0 = now();
	ret = ret ? ret : flip_n(c, &f, TURN_FLIPS);	/* an even count: ends on A */
	wall = now() - t0;
	snprintf(name, sizeof(name), "turns_%d_flips", i);
	bad += !check(!ret && f.ngot == TURN_FLIPS, name, "%d flip events: %s", f.ngot, err(ret));
	/*
	 * Vsynced: one vblank apart each (sequence), at the refresh rate
	 * (event timestamps), and never faster than it (wall clock, which
	 * also counts the time to the first event, so only as a bound).  A
	 * client that answers its event late misses a vblank: under TCG with
	 * a second guest on the host that happens once or twice in 60 flips,
	 * so up to TURN_GAPS are tolerated; a driver that flips every other
	 * vblank fails the rate.
	 */
	ret = 0;
	for (int k = 1; k < f.ngot; k++)
		ret += f.got[k].seq != f.got[k - 1].seq + 1;
	span = f.ngot > 1 ? f.got[f.ngot - 1].ts - f.got[0].ts : 0;
	snprintf(name, sizeof(name), "turns_%d_vsync", i);
	bad += !check(ret <= TURN_GAPS && span > 0 && within((f.ngot - 1) / span, c->refresh, c->tol) &&
		      TURN_FLIPS / wall <= c->refresh * (1 + c->tol), name,
		      "%.2f flips/s by event time, %.1f by wall clock, refresh %.2f Hz, "
		      "%d sequence gaps", span > 0 ? (f.ngot - 1) / span : 0, TURN_FLIPS / wall,
		      c->refresh, ret);
	snprintf(name, sizeof(name), "turns_%d_event_times", i);
	bad += !flip_check_times(&f, name);
	snprintf(name, sizeof(name), "turn_%d", i);
	checkpoint(name);
	drmDropMaster(c->fd);
	return bad;
}

/* A client process: its buffers first, then its turn when the pipe says. */
static int turn_client(const struct dev *d, int i, int go, int done)
{
	struct dev c = *d;
	char tok;
	int bad = 0, ret = 0;

	c.fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (c.fd < 0 || drmSetClientCap(c.fd, DRM_CLIENT_CAP_ATOMIC, 1))
		return 1;
	drmDropMaster(c.fd);	/* the first opener is master at once */
	for (int k = 0; k < 2 && !ret; k++) {
		ret = buf_create(c.fd, c.mode.hdisplay, c.mode.vdisplay, &c.scan[k]);
		if (!ret)
			fill(c.fd, &c.scan[k], k ? turn_colors[i] ^ 0x00101010 : turn_colors[i]);
	}
	if (write(done, "a", 1) != 1 || ret)
		return 1;
	if (read(go, &tok, 1) != 1)
		return 1;
	bad = turn_run(&c, i);
	fflush(stdout);
	if (write(done, "t", 1) != 1)
		return 1;
	/* Keep the buffers until every turn is over: all exist at once. */
	if (read(go, &tok, 1) != 1)
		return 1;
	close(c.fd);
	return bad;
}

void group_turns(struct dev *d)
{
	int go[TURNS][2], done[2], status, fails = 0;
	pid_t pid[TURNS];
	char tok;

	/* Turn off only what we showed: the clients take over the console's mode. */
	if (d->active)
		release_scanout(d);
	fflush(stdout);
	if (pipe(done) || drmDropMaster(d->fd)) {
		check(0, "turns_setup", "%s", strerror(errno));
		return;
	}
	for (int i = 0; i < TURNS; i++) {
		if (pipe(go[i]))
			return;
		pid[i] = fork();
		if (!pid[i])
			_exit(turn_client(d, i, go[i][0], done[1]));
	}
	for (int i = 0; i < TURNS; i++)
		fails += read(done[0], &tok, 1) != 1 || tok != 'a';
	check(!fails, "turns_all_allocated", "%d x 2 buffers of %ux%u", TURNS, d->mode.hdisplay,
	      d->mode.vdisplay);
	for (int i = 0; i < TURNS && !fails; i++) {
		fails += write(go[i][1], "g", 1) != 1;
		fails += read(done[0], &tok, 1) != 1 || tok != 't';
	}
	for (int i = 0; i < TURNS; i++) {
		char name[32];

		/* The others hold this pipe's write end too: say it, not EOF. */
		snprintf(name, sizeof(name), "turns_client_%d", i);
		child_done(pid[i], go[i][1], name);
		close(go[i][1]);
		close(go[i][0]);
	}
	close(done[0]);
	close(done[1]);
	status = drmSetMaster(d->fd) ? errno : 0;
	check(!status, "turns_master_back", "%s", status ? strerror(status) : "master again");
}
