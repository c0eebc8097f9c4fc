// SPDX-License-Identifier: GPL-2.0
/*
 * kmsvt-fuzz: what every group uses: the seeded random numbers, the call
 * statistics in shared memory, the guards that interrupt blocking calls,
 * anomaly reports, and the pools of ids handed back to the kernel.
 */
#include "fuzz.h"

#include <execinfo.h>
#include <stdarg.h>
#include <setjmp.h>
#include <sys/time.h>
#include <time.h>


struct fz fz;
struct shared *sh;

#define OP_NAME(name, group) #name,
const char *const op_names[N_OPS] = { FUZZ_OPS(OP_NAME) };
#undef OP_NAME
#define OP_GROUP(name, group) G_##group,
#define G_drm G_DRM
#define G_fb G_FB
#define G_vt G_VT
#define G_fault G_FAULT
const int op_groups[N_OPS] = { FUZZ_OPS(OP_GROUP) };

/* ---- random numbers: splitmix64, one stream a process ------------------ */

uint64_t rnd64(void)
{
	uint64_t z = (fz.rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

int one_in(uint32_t n)
{
	return rnd(n) == 0;
}

/* A value from the edges that break arithmetic, or plain random. */
uint64_t rnd_val(void)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 63, 64, 255, 256, 4095, 4096, 65535, 65536,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
		0x8000000000000000ull, ~0ull, ~0ull - 1, 0x10000, 0xfffe,
	};

	switch (rnd(4)) {
	case 0:
	case 1:
		return edges[rnd(ARRAY_SIZE(edges))];
	case 2:
		return rnd(1024);
	default:
		return one_in(2) ? (uint32_t)rnd64() : rnd64();
	}
}

/* A width or height: real mode sizes, tiny, huge and overflowing ones. */
uint32_t rnd_dim(void)
{
	static const uint32_t dims[] = {
		0, 1, 2, 3, 8, 64, 480, 600, 640, 768, 800, 1024, 1280, 1281, 1366, 1920,
		2048, 2560, 4096, 8192, 8193, 16384, 32767, 65535, 65536, 0x3fffffff,
		0x7fffffff, 0xffffffff,
	};

	return one_in(3) ? rnd(2049) : dims[rnd(ARRAY_SIZE(dims))];
}

void rnd_fill(void *p, size_t len)
{
	uint8_t *b = p;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t v = rnd64();

		memcpy(b + i, &v, len - i < 8 ? len - i : 8);
	}
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- statistics ------------------------------------------------------- */

void shared_init(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("kmsvt-fuzz: mmap");
		exit(1);
	}
}

static void max_u64(uint64_t *p, uint64_t v)
{
	uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > old && !__atomic_compare_exchange_n(p, &old, v, 0, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

/*
 * Count one call of op that ended with errno err (0: success), started at
 * t0.  A call that takes seconds has a guard (or no reason) to be short: a
 * kernel stuck in an uninterruptible wait is worth a report.  Returns -err.
 */
int record(int op, int err, double t0)
{
	struct opstat *s = &sh->op[op];
	double dt = now() - t0;

	__atomic_fetch_add(&s->calls, 1, __ATOMIC_RELAXED);
	if (err)
		__atomic_fetch_add(&s->err[err > 0 && err < N_ERRNO ? err : N_ERRNO], 1,
				   __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&s->ok, 1, __ATOMIC_RELAXED);
	max_u64(&s->max_ns, (uint64_t)(dt * 1e9));
	if (dt > 8)
		anomaly("%s took %.1f s (errno %d)", op_names[op], dt, err);
	fz.calls++;
	return -err;
}

/* ioctl() counted as op; returns the ioctl's value or -errno. */
int xioctl(int op, int fd, unsigned long req, void *arg)
{
	double t0 = now();
	int r = ioctl(fd, req, arg);
	int e = r < 0 ? errno : 0;

	record(op, e, t0);
	return r < 0 ? -e : r;
}

/* xioctl() of a call that may block: interrupted (EINTR) after ms. */
int gioctl(int op, int fd, unsigned long req, void *arg, unsigned int ms)
{
	int r;

	guard(ms);
	r = xioctl(op, fd, req, arg);
	unguard();
	return r;
}

/* ---- guards: SIGALRM without SA_RESTART turns a wait into EINTR --------- */

static void on_alarm(int sig)
{
	(void)sig;
}

void guard_init(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}

/*
 * SIGALRM after ms and every 20 ms after that: a signal that lands just
 * before the call blocks would otherwise be lost and the call wait forever.
 */
void guard(unsigned int ms)
{
	struct itimerval it = {
		.it_value = { ms / 1000, (ms % 1000) * 1000 + 1 },
		.it_interval = { 0, 20000 },
	};

	setitimer(ITIMER_REAL, &it, NULL);
}

void unguard(void)
{
	struct itimerval it = { 0 };

	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * The fuzzer's own crash: where, for addr2line (the parent reports the
 * signal).  The default action is back (SA_RESETHAND) for the re-raise.
 */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *frames[32];
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "kmsvt-fuzz: process %d: signal %d at %p, backtrace:\n",
			 fz.index, sig, si->si_addr);

	(void)uc;
	if (write(1, msg, n) < 0)
		_exit(4);
	backtrace_symbols_fd(frames, backtrace(frames, 32), 1);
	raise(sig);
}

void crash_init(void)
{
	struct sigaction sa = { .sa_sigaction = on_crash,
				.sa_flags = SA_SIGINFO | SA_RESETHAND };
	void *frames[1];

	backtrace(frames, 1);	/* loads libgcc now, not in the handler */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
}

/* Something the kernel should not do: reported, counted, exit status 1. */
void anomaly(const char *fmt, ...)
{
	va_list ap;

	__atomic_fetch_add(&sh->anomalies, 1, __ATOMIC_RELAXED);
	printf("kmsvt-fuzz: ANOMALY: process %d (pid %d) after %llu calls: ", fz.index,
	       (int)getpid(), (unsigned long long)fz.calls);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ---- writes through a mapping the kernel gave us ------------------------ */

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t fault_sig;

static void on_fault(int sig)
{
	fault_sig = sig;
	siglongjmp(fault_jmp, 1);
}

/*
 * Write a few random spans of a mapping the kernel accepted.  Every byte of
 * it must be there: a SIGBUS or SIGSEGV is the kernel's fault, reported.
 * Returns 0 or the signal.
 */
int write_mapping(void *map, size_t len)
{
	struct sigaction sa = { .sa_handler = on_fault }, old_bus, old_segv;
	volatile uint8_t *p = map;
	int spans = 1 + rnd(4);

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	fault_sig = 0;
	if (!sigsetjmp(fault_jmp, 1)) {
		for (int i = 0; i < spans && len; i++) {
			size_t off = one_in(4) ? len - 1 : rnd64() % len;
			size_t n = 1 + rnd(4096);

			if (n > len - off)
				n = len - off;
			for (size_t k = 0; k < n; k++)
				p[off + k] = (uint8_t)(off + k);
			(void)p[rnd64() % len];
		}
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return fault_sig;
}

/* ---- pools ------------------------------------------------------------- */

void pool_add(struct pool *p, uint64_t v)
{
	for (int i = 0; i < p->n; i++)
		if (p->v[i] == v)
			return;
	if (p->n < POOL_MAX)
		p->v[p->n++] = v;
	else
		p->v[rnd(POOL_MAX)] = v;
}

uint64_t pool_pick(const struct pool *p)
{
	return p->n ? p->v[rnd(p->n)] : 0;
}

void pool_del(struct pool *p, uint64_t v)
{
	for (int i = 0; i < p->n; i++)
		if (p->v[i] == v) {
			p->v[i] = p->v[--p->n];
			return;
		}
}

/* Mostly an id we know, sometimes one nobody has, sometimes a neighbour's. */
uint32_t pick_id(const struct pool *p)
{
	switch (rnd(10)) {
	case 0:
		return (uint32_t)rnd_val();
	case 1:
		return rnd(128);
	default:
		return p->n ? (uint32_t)pool_pick(p) : rnd(128);
	}
}

int budget_left(void)
{
	return fz.calls < fz.budget && now() < fz.deadline &&
	       !__atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}
