// SPDX-License-Identifier: GPL-2.0
/*
 * Crash triggers for the panic screen's tests, only with test_hooks=1:
 * debugfs panic_test takes "hrtimer" (panic in hard interrupt context),
 * "modeset" (panic with every modeset lock held), "oops" (a NULL
 * dereference in process context, which kills only the writer) and
 * "pstore_garbage" (random bytes over the pstore strip's records, the first
 * one with pstore_zone's signature and an impossible length).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>
#include <drm/drm_modeset_lock.h>

#include "kmsvt_drv.h"

static bool test_hooks;
module_param(test_hooks, bool, 0444);
MODULE_PARM_DESC(test_hooks, "expose debugfs panic_test crash triggers (testing only)");

static struct hrtimer kmsvt_test_timer;

static enum hrtimer_restart kmsvt_test_panic_hrtimer(struct hrtimer *timer)
{
	panic("kmsvt test: panic in hrtimer callback");
	return HRTIMER_NORESTART;
}

static noinline void kmsvt_test_panic_modeset(struct kmsvt_device *kdev)
{
	drm_modeset_lock_all(&kdev->drm);
	panic("kmsvt test: panic with the modeset locks held");
}

static noinline void kmsvt_test_oops(void)
{
	int *p = NULL;

	OPTIMIZER_HIDE_VAR(p);	/* a real dereference, not one the compiler drops */
	*p = 0x6b6b6b6b;
}

static ssize_t kmsvt_panic_test_write(struct file *file, const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct kmsvt_device *kdev = file->private_data;
	char buf[16], *word;
	int ret = kmsvt_debugfs_word(ubuf, len, buf, sizeof(buf), &word);

	if (ret)
		return ret;
	if (!strcmp(word, "hrtimer")) {
		kmsvt_hrtimer_setup(&kmsvt_test_timer, kmsvt_test_panic_hrtimer,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		hrtimer_start(&kmsvt_test_timer, ms_to_ktime(10), HRTIMER_MODE_REL);
	} else if (!strcmp(word, "modeset")) {
		kmsvt_test_panic_modeset(kdev);
	} else if (!strcmp(word, "oops")) {
		kmsvt_test_oops();
	} else if (!strcmp(word, "pstore_garbage")) {
		kmsvt_pstore_test_garbage(kdev);
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations kmsvt_panic_test_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = kmsvt_panic_test_write,
	.llseek = noop_llseek,
};

void kmsvt_panic_test_debugfs_init(struct kmsvt_device *kdev, struct dentry *root)
{
	if (test_hooks)
		debugfs_create_file("panic_test", 0200, root, kdev, &kmsvt_panic_test_fops);
}
