// SPDX-License-Identifier: GPL-2.0
/*
 * The panic screen's text: the youngest kmsg records, read into a buffer
 * allocated at probe, and how they are laid out: the unwinder's guesses
 * left out, the panic message kept on screen.  Panic path: no allocation,
 * no lock.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/kmsg_dump.h>
#include <linux/string.h>
#include <linux/time64.h>

#include "panic.h"

/*
 * Stack entries printed with "? " are guesses of the unwinder; leaving them
 * out keeps the real call chain and the panic message on one screen.
 */
bool kmsvt_line_unreliable(const char *start, const char *end)
{
	const char *ts = memchr(start, ']', min_t(size_t, end - start, 20));

	return ts && end - ts > 4 && !memcmp(ts, "]  ? ", 5);
}

/*
 * The panic message and the stack under it are what the screen is for.
 * Lines logged after them (another CPU's warning while this one was still
 * printing, say) could push them off the top: then end the window where
 * the panic message is still its first line.  Returns the length to draw.
 */
size_t kmsvt_log_keep_panic(const char *log, size_t len, u32 cols, u32 rows)
{
	const char *p = strnstr(log, KMSVT_PANIC_LINE, len), *next, *end;
	u32 used = 0;

	while (p && (next = strnstr(p + 1, KMSVT_PANIC_LINE, log + len - p - 1)))
		p = next;
	if (!p || !cols)
		return len;
	while (p > log && p[-1] != '\n')
		p--;
	for (; p < log + len; p = end + 1) {
		end = strnchr(p, log + len - p, '\n');
		if (!end)
			end = log + len;
		if (kmsvt_line_unreliable(p, end))
			continue;
		used += max_t(u32, 1, DIV_ROUND_UP(end - p, cols));
		if (used > rows)
			return p > log ? p - 1 - log : len;
	}
	return len;
}

/*
 * printk's timestamp ("[    2.768308] ") of the line holding @needle, in ns
 * of local_clock(), or 0: it tells when panic() started.
 */
static u64 kmsvt_log_time(const char *log, size_t len, const char *needle)
{
	const char *p = strnstr(log, needle, len);
	u64 sec = 0, usec = 0;

	if (!p)
		return 0;
	while (p > log && p[-1] != '\n')
		p--;
	if (*p++ != '[')
		return 0;
	while (*p == ' ')
		p++;
	while (isdigit(*p))
		sec = sec * 10 + (*p++ - '0');
	if (*p++ != '.')
		return 0;
	while (isdigit(*p))
		usec = usec * 10 + (*p++ - '0');
	return sec * NSEC_PER_SEC + usec * NSEC_PER_USEC;
}

/*
 * A screen, even a tall one, or a QR code holds fewer lines than this;
 * starting the dump here spares kmsg_dump_get_buffer() a walk over the
 * whole ring buffer (the boot log) to find which records fit.
 */
#define KMSVT_LOG_RECORDS	192

/* The youngest records that fit in the buffer, as plain text lines. */
size_t kmsvt_read_log(struct kmsvt_panic *kp)
{
	struct kmsg_dump_iter iter;
	size_t len = 0;

	kmsg_dump_rewind(&iter);
	if (iter.next_seq - iter.cur_seq > KMSVT_LOG_RECORDS)
		iter.cur_seq = iter.next_seq - KMSVT_LOG_RECORDS;
	kmsg_dump_get_buffer(&iter, false, kp->log, sizeof(kp->log), &len);
	while (len && (kp->log[len - 1] == '\n' || kp->log[len - 1] == '\0'))
		len--;
	kp->panic_ns = kmsvt_log_time(kp->log, len, KMSVT_PANIC_LINE);
	return len;
}

/* Drop the unwinder's guesses from log[0..len), in place; returns the new length. */
size_t kmsvt_compact_log(char *log, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		const char *nl = memchr(log + in, '\n', len - in);
		size_t n = nl ? nl - (log + in) + 1 : len - in;

		if (!kmsvt_line_unreliable(log + in, log + in + n)) {
			memmove(log + out, log + in, n);
			out += n;
		}
		in += n;
	}
	return out;
}
