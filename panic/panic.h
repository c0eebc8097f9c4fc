/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KMSVT_PANIC_H
#define KMSVT_PANIC_H

#include <linux/atomic.h>
#include <linux/kmsg_dump.h>
#include <linux/notifier.h>

struct kmsvt_device;

/* Everything the panic path needs, allocated at probe time. */
struct kmsvt_panic {
	struct kmsvt_device *kdev;
	struct kmsg_dumper dumper;
	struct notifier_block nb;
	const char *reason;		/* panic()'s message */
	atomic_t drawn;			/* the screen is drawn once */
	u64 draw_ns;			/* how long drawing took */
	char line[256];
	char log[16384];		/* the youngest kmsg records */
};

#endif /* KMSVT_PANIC_H */
