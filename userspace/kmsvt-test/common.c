// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-test: reporting, small helpers, atomic requests and page flip events:
 * what every group uses.
 */
#include "kmsvt-test.h"

int n_pass, n_fail, n_skip;

/* ---- reporting --------------------------------------------------------- */

static void vresult(int pass, const char *name, const char *fmt, va_list ap)
{
	printf("%s %s", pass ? "ok" : "not ok", name);
	if (fmt && *fmt) {
		printf(": ");
		vprintf(fmt, ap);
	}
	printf("\n");
	fflush(stdout);
	if (pass)
		n_pass++;
	else
		n_fail++;
}

__attribute__((format(printf, 3, 4)))
int check(int pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(pass, name, fmt, ap);
	va_end(ap);
	return pass;
}

/* Like check(), but the detail is printed only on failure. */
__attribute__((format(printf, 3, 4)))
int checkq(int pass, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(pass, name, pass ? NULL : fmt, ap);
	va_end(ap);
	return pass;
}

void skip(const char *name, const char *why)
{
	printf("ok %s # SKIP %s\n", name, why);
	fflush(stdout);
	n_pass++;
	n_skip++;
}

__attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* "-EINVAL" for -22, "0" for success. */
const char *err(int ret)
{
	static const struct { int e; const char *n; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
		{ ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EFAULT, "EFAULT" },
		{ EBUSY, "EBUSY" }, { ENODEV, "ENODEV" }, { EINVAL, "EINVAL" },
		{ ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" }, { ENOSYS, "ENOSYS" },
		{ EOPNOTSUPP, "EOPNOTSUPP" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ E2BIG, "E2BIG" }, { EBADF, "EBADF" }, { ENXIO, "ENXIO" },
	};
	static char bufs[8][32];
	static unsigned int n;
	char *buf = bufs[n++ % 8];

	if (ret == 0)
		return "0";
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (-ret == names[i].e) {
			snprintf(buf, sizeof(bufs[0]), "-%s", names[i].n);
			return buf;
		}
	snprintf(buf, sizeof(bufs[0]), "%d", ret);
	return buf;
}

/* ret must be one of the negated errnos listed (0-terminated), e.g. EINVAL, 0. */
/*
 * With KMSVT_TEST_SYNC=DIR, stop at a named point so that someone outside
 * (the test harness, which reads the screen) can look: create DIR/NAME and
 * wait up to a minute for DIR/NAME.ack.  Without it, go straight on.
 */
void checkpoint(const char *name)
{
	const char *dir = getenv("KMSVT_TEST_SYNC");
	char path[512];
	struct stat st;
	int fd;

	if (!dir)
		return;
	fflush(stdout);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "%s/%s.ack", dir, name);
	for (int i = 0; i < 3000 && stat(path, &st); i++)
		usleep(20000);
}

int expect(const char *name, int ret, ...)
{
	char want[128] = "";
	va_list ap;
	int e;

	va_start(ap, ret);
	while ((e = va_arg(ap, int))) {
		if (ret == -e) {
			va_end(ap);
			return check(1, name, "%s", err(ret));
		}
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s",
			 *want ? " or " : "", err(-e));
	}
	va_end(ap);
	return check(0, name, "got %s, want %s", err(ret), want);
}

/* ---- small helpers ----------------------------------------------------- */

int add_fb(int fd, uint32_t w, uint32_t h, uint32_t handle, uint32_t pitch,
		  uint32_t offset, uint32_t *fb)
{
	uint32_t handles[4] = { handle }, pitches[4] = { pitch }, offsets[4] = { offset };

	return drmModeAddFB2(fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches, offsets, fb, 0);
}

void fill(int fd, const struct buf *b, uint32_t color)
{
	uint32_t *p = dumb_map(fd, b->handle, b->size, 0);

	if (!p)
		return;
	for (uint64_t i = 0; i < b->size / 4; i++)
		p[i] = color;
	munmap(p, b->size);
}

/* A w x h XRGB8888 dumb buffer with a framebuffer; returns -errno. */
int buf_create(int fd, uint32_t w, uint32_t h, struct buf *b)
{
	struct drm_mode_create_dumb c;
	int ret = dumb_create(fd, w, h, 32, &c);

	memset(b, 0, sizeof(*b));
	if (ret)
		return ret;
	*b = (struct buf){ .w = w, .h = h, .handle = c.handle, .pitch = c.pitch,
			   .size = c.size };
	ret = add_fb(fd, w, h, c.handle, c.pitch, 0, &b->fb);
	if (ret) {
		dumb_destroy(fd, c.handle);
		b->handle = 0;
	}
	return ret;
}

void buf_destroy(int fd, struct buf *b)
{
	if (b->fb)
		drmModeRmFB(fd, b->fb);
	if (b->handle)
		dumb_destroy(fd, b->handle);
	memset(b, 0, sizeof(*b));
}

/* A plausible mode with CVT-ish blanking at 60 Hz. */
drmModeModeInfo make_mode(uint16_t w, uint16_t h)
{
	drmModeModeInfo m = {
		.hdisplay = w, .hsync_start = w + 48, .hsync_end = w + 80, .htotal = w + 160,
		.vdisplay = h, .vsync_start = h + 3, .vsync_end = h + 9, .vtotal = h + 30,
		.vrefresh = 60, .flags = DRM_MODE_FLAG_NHSYNC | DRM_MODE_FLAG_PVSYNC,
		.type = DRM_MODE_TYPE_USERDEF,
	};

	m.clock = (uint32_t)((uint64_t)m.htotal * m.vtotal * 60 / 1000);
	snprintf(m.name, sizeof(m.name), "%ux%u", w, h);
	return m;
}

/* ---- atomic requests --------------------------------------------------- */

void add_plane(drmModeAtomicReq *req, const struct dev *d, uint32_t fb,
		      uint32_t sw, uint32_t sh, uint32_t cw, uint32_t ch)
{
	uint32_t pl = d->plane;

	drmModeAtomicAddProperty(req, pl, d->p.fb_id, fb);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_id, fb ? d->crtc : 0);
	drmModeAtomicAddProperty(req, pl, d->p.src_x, 0);
	drmModeAtomicAddProperty(req, pl, d->p.src_y, 0);
	drmModeAtomicAddProperty(req, pl, d->p.src_w, (uint64_t)sw << 16);
	drmModeAtomicAddProperty(req, pl, d->p.src_h, (uint64_t)sh << 16);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_x, 0);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_y, 0);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_w, cw);
	drmModeAtomicAddProperty(req, pl, d->p.crtc_h, ch);
}

/*
 * Commit a full modeset to mode m with fb scanned out from (0,0), sw x sh
 * source pixels onto the whole mode.  Returns -errno.
 */
int commit_mode(const struct dev *d, const drmModeModeInfo *m, uint32_t fb,
		       uint32_t sw, uint32_t sh, uint32_t flags)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	uint32_t blob;
	int ret;

	ret = drmModeCreatePropertyBlob(d->fd, m, sizeof(*m), &blob);
	if (ret) {
		drmModeAtomicFree(req);
		return ret;
	}
	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_mode_id, blob);
	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 1);
	drmModeAtomicAddProperty(req, d->conn, d->p.conn_crtc_id, d->crtc);
	add_plane(req, d, fb, sw, sh, m->hdisplay, m->vdisplay);
	ret = drmModeAtomicCommit(d->fd, req, flags | DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	drmModeDestroyPropertyBlob(d->fd, blob);
	return ret;
}

/* Turn the whole pipe off (active == 0: only ACTIVE=0, mode and fb kept). */
int commit_off(const struct dev *d, int keep_mode)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_active, 0);
	if (!keep_mode) {
		drmModeAtomicAddProperty(req, d->crtc, d->p.crtc_mode_id, 0);
		drmModeAtomicAddProperty(req, d->conn, d->p.conn_crtc_id, 0);
		drmModeAtomicAddProperty(req, d->plane, d->p.fb_id, 0);
		drmModeAtomicAddProperty(req, d->plane, d->p.crtc_id, 0);
	}
	ret = drmModeAtomicCommit(d->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL);
	drmModeAtomicFree(req);
	return ret;
}

/* A flip of the primary plane to fb (same geometry). */
int commit_flip(const struct dev *d, uint32_t fb, uint32_t flags, uint64_t data)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	drmModeAtomicAddProperty(req, d->plane, d->p.fb_id, fb);
	ret = drmModeAtomicCommit(d->fd, req, flags, (void *)(uintptr_t)data);
	drmModeAtomicFree(req);
	return ret;
}

/*
 * commit_flip() with the next user_data of f, recorded with the time just
 * before the ioctl (an event must never be stamped earlier) when the
 * commit is taken.  Returns -errno.
 */
int flip_sent(const struct dev *d, struct flips *f, uint32_t fb, uint32_t flags)
{
	uint64_t data = f->nsent + 1;
	double t = now();
	int ret = commit_flip(d, fb, flags, data);

	if (!ret) {
		f->sent_t[f->nsent] = t;
		f->sent[f->nsent++] = data;
	}
	return ret;
}

/*
 * A closed client's buffers go back to VRAM only when the last commit that
 * used them is cleaned up, a frame or two later: retry -ENOSPC for a while.
 */
static int buf_create_wait(int fd, uint32_t w, uint32_t h, struct buf *b)
{
	int ret, tries = 0;

	while ((ret = buf_create(fd, w, h, b)) == -ENOSPC && tries++ < 40)
		usleep(25000);
	if (!ret && tries)
		diag("VRAM for a %ux%u buffer came back after %d ms", w, h, tries * 25);
	return ret;
}

/* Our modeset with scan[0], unless it is already up.  Returns -errno. */
int need_active(struct dev *d)
{
	int ret;

	if (d->active)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (d->scan[i].fb)
			continue;
		ret = buf_create_wait(d->fd, d->mode.hdisplay, d->mode.vdisplay, &d->scan[i]);
		if (ret)
			return ret;
		fill(d->fd, &d->scan[i], i ? 0x00204080 : 0x00804020);
	}
	ret = commit_mode(d, &d->mode, d->scan[0].fb, d->mode.hdisplay, d->mode.vdisplay, 0);
	d->active = !ret;
	d->cur = 0;
	return ret;
}

void release_scanout(struct dev *d)
{
	commit_off(d, 0);
	buf_destroy(d->fd, &d->scan[0]);
	buf_destroy(d->fd, &d->scan[1]);
	d->active = 0;
}

int active_or_fail(struct dev *d, const char *name)
{
	int ret = need_active(d);

	if (ret)
		check(0, name, "cannot set up our modeset: %s", err(ret));
	return ret;
}

/* CRTC's current fb id and mode. */
uint32_t crtc_fb(const struct dev *d, drmModeModeInfo *mode)
{
	drmModeCrtc *c = drmModeGetCrtc(d->fd, d->crtc);
	uint32_t fb = 0;

	if (mode)
		memset(mode, 0, sizeof(*mode));
	if (!c)
		return 0;
	fb = c->buffer_id;
	if (mode && c->mode_valid)
		*mode = c->mode;
	drmModeFreeCrtc(c);
	return fb;
}

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

int within(double got, double want, double tol)
{
	return want > 0 && dabs(got - want) <= tol * want;
}

/*
 * Raise or drop CAP_SYS_ADMIN in the effective set (-EPERM if not permitted):
 * root without it is neither authenticated nor allowed another's handles.
 */
int sysadmin(int on)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct cap[2];
	uint32_t bit = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (syscall(SYS_capget, &hdr, cap))
		return -errno;
	if (!(cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted & bit))
		return -EPERM;
	if (on)
		cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective |= bit;
	else
		cap[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~bit;
	return syscall(SYS_capset, &hdr, cap) ? -errno : 0;
}

/* ---- page flip events -------------------------------------------------- */

static struct flips *flips_cur;

static void on_flip(int fd, unsigned int seq, unsigned int sec, unsigned int usec,
		    unsigned int crtc, void *data)
{
	struct flips *f = flips_cur;
	struct flip_rec *r;

	(void)fd;
	if (!f)
		return;
	if (f->ngot >= (int)ARRAY_SIZE(f->got)) {
		f->overflow++;
		return;
	}
	r = &f->got[f->ngot++];
	*r = (struct flip_rec){ .data = (uintptr_t)data, .seq = seq, .crtc = crtc,
				.ts = sec + usec / 1e6 };
}

/* Read events until f has want of them; -ETIMEDOUT if none for timeout_ms. */
int wait_events(int fd, struct flips *f, int want, int timeout_ms)
{
	drmEventContext ev = { .version = 3, .page_flip_handler2 = on_flip };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	flips_cur = f;
	while (f->ngot < want) {
		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r ? -errno : -ETIMEDOUT;
		if (drmHandleEvent(fd, &ev))
			return -EIO;
	}
	return 0;
}

/*
 * n nonblocking flips with events, each to the scan[] buffer not on screen,
 * each waited for; d->cur follows.  Events are added to f.  Returns -errno.
 */
int flip_n(struct dev *d, struct flips *f, int n)
{
	int ret = 0;

	for (int k = 0; !ret && k < n; k++) {
		ret = flip_sent(d, f, d->scan[!d->cur].fb,
				DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT);
		if (ret)
			break;
		d->cur = !d->cur;
		ret = wait_events(d->fd, f, f->nsent, 2000);
	}
	return ret;
}

/*
 * A child process told to finish with one byte on @go (killed if that
 * cannot be sent), waited for, and checked as @name: it must exit 0.
 */
void child_done(pid_t pid, int go, const char *name)
{
	int status;

	if (write(go, "q", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && !WEXITSTATUS(status), name, "exit status %#x", status);
}
