/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMSVT_PANIC_H
#define KMSVT_PANIC_H

#include <linux/atomic.h>
#include <linux/kmsg_dump.h>
#include <linux/notifier.h>

#include "qr.h"

struct kmsvt_device;

/* Everything the panic path needs, allocated at probe time. */
struct kmsvt_panic {
	struct kmsvt_device *kdev;
	struct kmsg_dumper dumper;
	struct notifier_block nb;
	const char *reason;		/* panic()'s message */
	atomic_t drawn;			/* the screen is drawn once */
	u64 draw_ns;			/* how long drawing took */
	u64 panic_ns;			/* printk time of panic()'s message */
	u64 notify_local;		/* local_clock() in the panic notifier */
	u64 notify_mono;		/* ktime_get_mono_fast_ns() there */
	u64 drawn_at;			/* ktime_get_mono_fast_ns() when drawn */
	char line[256];
	char log[16384];		/* the youngest kmsg records */
	u8 qr_data[KMSVT_QR_MAX_BYTES];
	u8 qr_work[KMSVT_QR_WORK_LEN];
	u8 qr_modules[KMSVT_QR_MODULES_MAX];
};

#endif /* KMSVT_PANIC_H */
